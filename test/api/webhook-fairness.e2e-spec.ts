import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Webhook } from 'standardwebhooks';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createLead, enterpriseWithEndpoint } from '../helpers/webhook-endpoint.js';
import { WebhookReceiver, type ReceivedWebhook } from '../helpers/webhook-receiver.js';

const CONCURRENCY = 4;
const ENTERPRISE_CONCURRENCY = 2;
const ENDPOINTS_PER_ENTERPRISE = 6;
const SLOW_ANSWER_MS = 2500;

/**
 * Push that no tenant holds up and that obeys a change to an endpoint at once, against real
 * receivers on loopback: a tenant with slow receivers keeps to its own delivery slots, an
 * enterprise's endpoints are bounded, and PATCH, DELETE, disabling and rotation act on the very
 * next attempt of a backlog being delivered.
 */
describe('fair outbound deliveries that follow endpoint changes', () => {
  let t: TestApp;
  let worker: WebhookDeliveryWorker;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_ENTERPRISE_CONCURRENCY: String(ENTERPRISE_CONCURRENCY),
      WEBHOOK_ENDPOINTS_PER_ENTERPRISE: String(ENDPOINTS_PER_ENTERPRISE),
    });
    worker = t.app.get(WebhookDeliveryWorker);
    worker.start();
  });
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.stop();
    // Nothing of one test is delivered during the next.
    await t.dataSource.query(`DELETE FROM webhook_endpoints`);
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  async function receiver(answerMs = 0): Promise<{ receiver: WebhookReceiver; url: string }> {
    const made = new WebhookReceiver();
    receivers.push(made);
    if (answerMs > 0) made.answer = () => ({ status: 200, delayMs: answerMs });
    return { receiver: made, url: `${await made.start()}/hooks` };
  }

  async function addEndpoint(headers: Record<string, string>, url: string) {
    return t.app.inject({ method: 'POST', url: '/api/v2/webhook-endpoints', headers, payload: { url } });
  }

  it("keeps a tenant's slow receivers to that tenant's slots: another tenant's change arrives at once", async () => {
    const slow = await receiver(SLOW_ANSWER_MS);
    const b = await enterpriseWithEndpoint(t, { url: slow.url });
    for (let i = 1; i < ENDPOINTS_PER_ENTERPRISE; i++)
      expect((await addEndpoint(b.headers, slow.url)).statusCode).toBe(201);
    const fast = await receiver();
    const a = await enterpriseWithEndpoint(t, { url: fast.url });

    await createLead(t, b.headers, 'For the slow receivers');
    await slow.receiver.waitFor(() => slow.receiver.received.length >= 1, 5000);
    const written = Date.now();
    await createLead(t, a.headers, 'For the fast receiver');
    await fast.receiver.waitFor(() => fast.receiver.received.length >= 1, 10_000);
    // Without the bound per enterprise, B's six endpoints took all four slots for the whole slow answer.
    expect(Date.now() - written).toBeLessThan(SLOW_ANSWER_MS / 2);
    const firstAt = slow.receiver.received[0]?.at ?? 0;
    // B's deliveries under way together: those that arrived before the first one's answer could free
    // its slot (a third can only start after that). A loaded machine may start the second late,
    // so the window is the slow answer itself, not a fraction of it, and it is counted once it
    // has passed (the fast delivery can arrive before a late second one of B's).
    await new Promise((done) => setTimeout(done, Math.max(0, firstAt + SLOW_ANSWER_MS * 0.9 - Date.now())));
    const together = slow.receiver.received.filter((request) => request.at - firstAt < SLOW_ANSWER_MS * 0.9);
    expect(together).toHaveLength(ENTERPRISE_CONCURRENCY);
    // B's endpoints still all get their event, two at a time.
    await slow.receiver.waitFor(
      () => slow.receiver.received.length >= ENDPOINTS_PER_ENTERPRISE,
      4 * SLOW_ANSWER_MS,
      "B's events",
    );
  }, 30_000);

  it('refuses an endpoint past the bound per enterprise with 422, also when creates race for the last place', async () => {
    const { url } = await receiver();
    const { headers } = await enterpriseWithEndpoint(t, { url });
    for (let i = 2; i < ENDPOINTS_PER_ENTERPRISE; i++) expect((await addEndpoint(headers, url)).statusCode).toBe(201);
    const racing = await Promise.all([1, 2, 3, 4].map(() => addEndpoint(headers, url)));
    expect(racing.map((res) => res.statusCode).sort()).toEqual([201, 422, 422, 422]);
    const refused = racing.find((res) => res.statusCode === 422);
    expect(refused?.json()).toEqual({
      message: `The enterprise already has ${ENDPOINTS_PER_ENTERPRISE} webhook endpoints, the most it may have: delete one before adding another.`,
      errors: {
        url: [
          `The enterprise already has ${ENDPOINTS_PER_ENTERPRISE} webhook endpoints, the most it may have: delete one before adding another.`,
        ],
      },
    });
    const [{ count }] = await t.dataSource.query<[{ count: number }]>(
      `SELECT count(*)::int AS count FROM webhook_endpoints WHERE enterprise_id = $1`,
      [headers['X-Enterprise-Id']],
    );
    expect(count).toBe(ENDPOINTS_PER_ENTERPRISE);
  });

  /**
   * An endpoint with a backlog of 40 leads being delivered (each answer takes 40 ms); `change`
   * runs once three have arrived. Answers what had arrived when the change answered, and the
   * lead titles.
   */
  async function backlogThen(
    change: (endpoint: { id: string; secret: string }, headers: Record<string, string>) => Promise<void>,
  ) {
    const old = await receiver(40);
    const { headers, endpoint } = await enterpriseWithEndpoint(t, { url: old.url });
    const titles = Array.from({ length: 40 }, (_, i) => `Backlog ${i}`);
    for (const title of titles) await createLead(t, headers, title);
    await old.receiver.waitFor(() => old.receiver.received.length >= 3, 10_000);
    await change(endpoint, headers);
    const atAnswer = old.receiver.received.length;
    return { old: old.receiver, atAnswer, titles, headers, endpoint };
  }

  const settle = (ms: number) => new Promise((done) => setTimeout(done, ms));

  it('sends nothing more to the old URL once a PATCH of the url has answered: the backlog goes to the new one', async () => {
    const fresh = await receiver();
    const { old, atAnswer, titles } = await backlogThen(async (endpoint, headers) => {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v2/webhook-endpoints/${endpoint.id}`,
        headers,
        payload: { url: fresh.url },
      });
      expect(res.statusCode).toBe(200);
    });
    const arrived = (request: ReceivedWebhook[]) => new Set(request.map((r) => /Backlog \d+/.exec(r.body)?.[0]));
    await fresh.receiver.waitFor(
      () => titles.every((title) => arrived([...old.received, ...fresh.receiver.received]).has(title)),
      20_000,
      'the whole backlog',
    );
    // At most the one attempt already on the wire when the PATCH answered.
    expect(old.received.length - atAnswer).toBeLessThanOrEqual(1);
    expect(atAnswer).toBeLessThanOrEqual(30); // a backlog was still there to move
    expect(fresh.receiver.received.length).toBeGreaterThanOrEqual(titles.length - atAnswer - 1);
  }, 30_000);

  it('sends nothing more once a DELETE has answered, nor once the endpoint is disabled', async () => {
    const deleted = await backlogThen(async (endpoint, headers) => {
      const res = await t.app.inject({ method: 'DELETE', url: `/api/v2/webhook-endpoints/${endpoint.id}`, headers });
      expect(res.statusCode).toBe(204);
    });
    const disabled = await backlogThen(async (endpoint, headers) => {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v2/webhook-endpoints/${endpoint.id}`,
        headers,
        payload: { enabled: false },
      });
      expect(res.statusCode).toBe(200);
    });
    await settle(1000);
    expect(deleted.old.received.length - deleted.atAnswer).toBeLessThanOrEqual(1);
    expect(disabled.old.received.length - disabled.atAnswer).toBeLessThanOrEqual(1);
    expect(disabled.old.received.length).toBeLessThan(40);
  }, 30_000);

  it('signs every attempt after a rotation has answered with both secrets', async () => {
    let secret = '';
    const { old, atAnswer } = await backlogThen(async (endpoint, headers) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v2/webhook-endpoints/${endpoint.id}/rotate-secret`,
        headers,
      });
      expect(res.statusCode).toBe(200);
      secret = res.json<{ data: { secret: string } }>().data.secret;
    });
    await old.waitFor(() => old.received.length >= 40, 20_000, 'the whole backlog');
    // The one attempt that may have been on the wire is left out; every later one verifies with the new secret.
    const after = old.received.slice(atAnswer + 1);
    expect(after.length).toBeGreaterThanOrEqual(10);
    const unverified = after.filter((request) => {
      try {
        new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
        return false;
      } catch {
        return true;
      }
    });
    expect(unverified).toHaveLength(0);
  }, 30_000);
});
