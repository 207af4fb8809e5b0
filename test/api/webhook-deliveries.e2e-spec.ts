import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { metricsOf } from '../../src/app.factory.js';
import { ChangeCursorCodec, cursorKeyId } from '../../src/changes/change-cursor.js';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { WebhookClock } from '../../src/webhook-endpoints/webhook-clock.js';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createLead as createLeadWith, enterpriseWithEndpoint } from '../helpers/webhook-endpoint.js';
import { WebhookReceiver, type ReceivedWebhook } from '../helpers/webhook-receiver.js';

interface Event {
  type: string;
  timestamp: string;
  data: { type: string; id: string; action: string; changed_at: string; record: Record<string, unknown> | null };
}

const DAY_MS = 24 * 3600 * 1000;
// ajv-formats is CommonJS: under Node's ESM rules its default import is module.exports.
const addFormats = ajvFormats.default;
const parse = (request: ReceivedWebhook): Event => JSON.parse(request.body) as Event;
const tenantOf = (headers: Record<string, string>): string => headers['X-Enterprise-Id'] ?? '';

/**
 * Deliveries to real receivers on loopback (private addresses allowed, as in local development):
 * what is sent and how it is signed, every writer, retries, coalescing, timeouts, redirects, the
 * failure window (on a clock moved forward, never slept), replay and rotation.
 */
describe('outbound webhook deliveries', () => {
  let t: TestApp;
  let worker: WebhookDeliveryWorker;
  let clock: WebhookClock;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      METRICS_PORT: '9999',
    });
    worker = t.app.get(WebhookDeliveryWorker);
    clock = t.app.get(WebhookClock);
    worker.start();
  });
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.stop();
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  /** A fresh enterprise with a member logged in, a receiver, and an endpoint pointing at it. */
  async function setup(body: Record<string, unknown> = {}) {
    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    const url = `${await receiver.start()}/hooks`;
    const { tenant, headers, endpoint } = await enterpriseWithEndpoint(t, { url, ...body });
    const createLead = (title: string) => createLeadWith(t, headers, title);
    const updateLead = async (id: string, title: string) => {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/v2/leads/${id}`,
        headers,
        payload: { title, person_name: 'Pat' },
      });
      expect(res.statusCode).toBe(200);
    };
    const deliveries = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v2/webhook-endpoints/${endpoint.id}/deliveries`,
        headers,
      });
      expect(res.statusCode).toBe(200);
      return res.json<{ data: Record<string, unknown>[] }>().data;
    };
    /** Waits until `n` attempts are logged: the worker has saved what it learnt from them. */
    const attemptsLogged = async (n: number) => {
      for (let i = 0; i < 300; i++) {
        if ((await deliveries()).length >= n) return;
        await settle(50);
      }
      throw new Error(`fewer than ${n} attempts logged`);
    };
    const endpointNow = async () =>
      (await t.app.inject({ method: 'GET', url: `/api/v2/webhook-endpoints/${endpoint.id}`, headers })).json<{
        data: {
          enabled: boolean;
          disabled_reason: string | null;
          failures: number;
          failing_since: string | null;
          next_attempt_at: string | null;
          last_error: string | null;
          last_status_code: number | null;
        };
      }>().data;
    return {
      tenant,
      headers,
      receiver,
      url,
      endpoint,
      createLead,
      updateLead,
      deliveries,
      attemptsLogged,
      endpointNow,
    };
  }

  /** Lets the worker run a few rounds (for checking that nothing more arrives). */
  const settle = (ms = 300) => new Promise((resolve) => setTimeout(resolve, ms));

  it('sends a lead created through the API, signed as Standard Webhooks, with the feed entry as data', async () => {
    const { headers, receiver, endpoint, createLead } = await setup();
    const id = await createLead('Signed lead');
    await receiver.waitFor(() => receiver.received.length >= 1);
    const [request] = receiver.received;
    if (!request) throw new Error('nothing received');
    expect(request.url).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^FinanceIntake-Webhooks\//);
    expect(request.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{27}$/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>);
    const feed = await t.app.inject({ method: 'GET', url: '/api/v2/changes?types=lead', headers });
    const entry = feed.json<{ data: Event['data'][] }>().data.find((e) => e.id === id);
    expect(verified).toEqual({ type: 'lead.upserted', timestamp: entry?.changed_at, data: entry });
    // The event is what the v2 document's `webhooks` describes.
    const document = (await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<object>();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, 'v2');
    const eventSchema = ajv.getSchema('v2#/webhooks/changeEvent/post/requestBody/content/application~1json/schema');
    expect(eventSchema?.(JSON.parse(request.body))).toBe(true);
    expect(eventSchema?.({ ...JSON.parse(request.body), type: 'lead.renamed' })).toBe(false);
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(
        request.body,
        request.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('sends the changes of every writer: the API, the importer and SQL, removals included', async () => {
    const { tenant, receiver, createLead } = await setup();
    const leadId = await createLead('By the API');
    await receiver.waitFor(() => receiver.received.length >= 1);
    const personId = '6f1b7e0a-33c1-4c0e-9a59-1d2a3b4c5d6e'.replace('6f1b', Math.random().toString(16).slice(2, 6));
    await importFixture(t, {
      people: [{ id: personId, enterprise_id: tenant.enterpriseId, first_name: 'Ida', last_name: 'Imported' }],
    });
    await receiver.waitFor(() => receiver.events<Event>().some((e) => e.data.id === personId));
    await t.dataSource.query(`UPDATE leads SET title = 'By SQL' WHERE id = $1`, [leadId]);
    await receiver.waitFor(() => receiver.events<Event>().some((e) => e.data.record?.title === 'By SQL'));
    await t.dataSource.query(`DELETE FROM leads WHERE id = $1`, [leadId]);
    await receiver.waitFor(() => receiver.events<Event>().some((e) => e.type === 'lead.removed'));
    const events = receiver.events<Event>();
    expect(events.map((e) => [e.type, e.data.id, e.data.record?.title ?? e.data.record?.last_name ?? null])).toEqual([
      ['lead.upserted', leadId, 'By the API'],
      ['person.upserted', personId, 'Imported'],
      ['lead.upserted', leadId, 'By SQL'],
      ['lead.removed', leadId, null],
    ]);
    expect(events[3]?.data.record).toBeNull();
  });

  it('sends only the types the endpoint names', async () => {
    const { tenant, receiver, createLead } = await setup({ types: ['person'] });
    await createLead('Not for this endpoint');
    const personId = crypto.randomUUID();
    await importFixture(t, {
      people: [{ id: personId, enterprise_id: tenant.enterpriseId, first_name: 'Pia', last_name: 'Person' }],
    });
    await receiver.waitFor(() => receiver.received.length >= 1);
    await settle();
    expect(receiver.events<Event>().map((e) => [e.type, e.data.id])).toEqual([['person.upserted', personId]]);
  });

  it('retries a 500 with the same webhook-id, and lists both attempts newest first; the endpoint shows why it fails until then', async () => {
    const { receiver, createLead, deliveries, attemptsLogged, endpointNow } = await setup();
    receiver.answer = (_, index) => (index === 0 ? { status: 500, body: 'try later' } : { status: 200 });
    await createLead('Retried');
    await attemptsLogged(1);
    const failing = await endpointNow();
    expect(failing).toMatchObject({ failures: 1, last_error: 'HTTP 500', last_status_code: 500 });
    expect(Date.parse(failing.failing_since ?? '')).not.toBeNaN();
    expect(Date.parse(failing.next_attempt_at ?? '')).toBeGreaterThan(Date.parse(failing.failing_since ?? ''));
    clock.advance(10_000);
    await receiver.waitFor(() => receiver.received.length >= 2);
    await settle(100);
    const [first, second] = receiver.received;
    expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
    expect(receiver.received).toHaveLength(2);
    const attempts = await deliveries();
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error, a.webhook_id])).toEqual([
      [2, 200, null, first?.headers['webhook-id']],
      [1, 500, 'HTTP 500', first?.headers['webhook-id']],
    ]);
    expect(attempts[1]?.response_body).toBe('try later');
    expect(await endpointNow()).toMatchObject({
      failures: 0,
      failing_since: null,
      next_attempt_at: null,
      last_error: null,
      last_status_code: null,
    });
    expect(Object.keys(attempts[0] ?? {})).toEqual([
      'id',
      'webhook_id',
      'event_type',
      'attempt',
      'status_code',
      'error',
      'response_body',
      'duration_ms',
      'created_at',
    ]);
  });

  it('shows the failed attempt as the last error even when successes of the same round were logged with it', async () => {
    const { tenant, receiver, attemptsLogged, endpointNow } = await setup();
    receiver.answer = (_, index) => (index < 3 ? { status: 200 } : { status: 503, body: 'busy' });
    // One transaction, so one slice: three deliveries succeed and the fourth fails in the same round.
    await t.dataSource.query(
      `INSERT INTO leads (enterprise_id, title, person_name) SELECT $1, 'Batch ' || i, 'Pat' FROM generate_series(1, 4) i`,
      [tenant.enterpriseId],
    );
    await attemptsLogged(4);
    expect(await endpointNow()).toMatchObject({ failures: 1, last_error: 'HTTP 503', last_status_code: 503 });
  });

  it('sends a record changed five times while the receiver was down once, at its latest state', async () => {
    const { receiver, createLead, updateLead, attemptsLogged } = await setup();
    const port = receiver.port;
    await receiver.stop();
    const id = await createLead('v1');
    await attemptsLogged(1);
    for (const n of [2, 3, 4, 5]) await updateLead(id, `v${n}`);
    await receiver.start(port);
    clock.advance(DAY_MS);
    await receiver.waitFor(() => receiver.received.length >= 1);
    await settle();
    expect(receiver.events<Event>().map((e) => [e.type, e.data.id, e.data.record?.title])).toEqual([
      ['lead.upserted', id, 'v5'],
    ]);
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const { receiver, url, createLead, deliveries } = await setup();
    receiver.answer = (request) =>
      request.url === '/hooks' ? { status: 302, headers: { location: `${url}/elsewhere` } } : { status: 200 };
    await createLead('Redirected');
    await receiver.waitFor(() => receiver.received.length >= 1);
    await settle();
    expect(receiver.received.map((r) => r.url)).toEqual(['/hooks']);
    expect((await deliveries())[0]).toMatchObject({ status_code: 302, error: 'HTTP 302' });
  });

  it('gives up on an answer after 10 seconds and tries again', async () => {
    const { receiver, createLead, deliveries } = await setup();
    // The first answer would come long after the 10 s the service waits: an attempt recorded before
    // it, with no status, gave up; how long after 10 s depends only on the machine's load.
    receiver.answer = (_, index) => (index === 0 ? { status: 200, delayMs: 20_000 } : { status: 200 });
    await createLead('Slow');
    await receiver.waitFor(() => receiver.received.length >= 1);
    let attempts: Record<string, unknown>[] = [];
    for (let i = 0; i < 180 && attempts.length === 0; i++) {
      await settle(100);
      attempts = await deliveries();
    }
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: 'No answer within 10 s' });
    expect(Number(attempts[0]?.duration_ms)).toBeGreaterThanOrEqual(9_900);
    expect(Number(attempts[0]?.duration_ms)).toBeLessThan(18_000);
    clock.advance(60_000);
    await receiver.waitFor(() => receiver.received.length >= 2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);
  }, 30_000);

  it('disables an endpoint after 3 days of failures, sends nothing while disabled, and resumes when enabled', async () => {
    const { headers, receiver, endpoint, createLead, updateLead, attemptsLogged, endpointNow } = await setup();
    let up = false;
    receiver.answer = () => ({ status: up ? 200 : 503 });
    const first = await createLead('Before');
    await attemptsLogged(1);
    clock.advance(DAY_MS);
    await attemptsLogged(2);
    expect((await endpointNow()).enabled).toBe(true);
    clock.advance(2 * DAY_MS);
    await attemptsLogged(3);
    expect(await endpointNow()).toMatchObject({
      enabled: false,
      disabled_reason: 'Every delivery failed for 3 days; enable the endpoint again to resume.',
    });
    // The service's disable is on the enterprise's trail, written with it, once.
    expect(
      await selectRows(
        t.dataSource,
        `SELECT actor, actor_user_id, target_type, details FROM audit_events
          WHERE action = 'webhook_endpoint.disabled' AND target_id = $1`,
        [endpoint.id],
      ),
    ).toEqual([
      {
        actor: 'system',
        actor_user_id: null,
        target_type: 'webhook_endpoint',
        details: { reason: 'Every delivery failed for 3 days; enable the endpoint again to resume.' },
      },
    ]);
    const seen = receiver.received.length;
    const second = await createLead('While disabled');
    await updateLead(first, 'Before, changed while disabled');
    clock.advance(DAY_MS);
    await settle(400);
    expect(receiver.received).toHaveLength(seen);

    up = true;
    const enabled = await t.app.inject({
      method: 'PATCH',
      url: `/api/v2/webhook-endpoints/${endpoint.id}`,
      headers,
      payload: { enabled: true },
    });
    expect(enabled.json<{ data: object }>().data).toMatchObject({ enabled: true, disabled_reason: null });
    await receiver.waitFor(() => receiver.accepted().length >= 2);
    await settle();
    expect(receiver.accepted().map((r) => [parse(r).data.id, parse(r).data.record?.title])).toEqual([
      [second, 'While disabled'],
      [first, 'Before, changed while disabled'],
    ]);
  });

  it('replays from a feed cursor with new webhook ids, and refuses a cursor of another enterprise', async () => {
    const { headers, receiver, endpoint, createLead } = await setup();
    const cursor = (await t.app.inject({ method: 'GET', url: '/api/v2/changes/cursor', headers })).json<{
      data: { cursor: string };
    }>().data.cursor;
    const a = await createLead('Replay A');
    const b = await createLead('Replay B');
    await receiver.waitFor(() => receiver.received.length >= 2);
    const replay = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhook-endpoints/${endpoint.id}/replay`,
      headers,
      payload: { cursor },
    });
    expect(replay.statusCode).toBe(202);
    expect(replay.json<{ data: { id: string } }>().data.id).toBe(endpoint.id);
    await receiver.waitFor(() => receiver.received.length >= 4);
    await settle();
    const ids = receiver.events<Event>().map((e) => e.data.id);
    expect(ids).toEqual([a, b, a, b]);
    const webhookIds = receiver.received.map((r) => r.headers['webhook-id']);
    expect(new Set(webhookIds).size).toBe(4);

    const other = await setup();
    const foreignCursor = (
      await t.app.inject({ method: 'GET', url: '/api/v2/changes/cursor', headers: other.headers })
    ).json<{
      data: { cursor: string };
    }>().data.cursor;
    for (const bad of [{ cursor: foreignCursor }, { cursor: 'made-up' }, {}]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v2/webhook-endpoints/${endpoint.id}/replay`,
        headers,
        payload: bad,
      });
      expect(res.statusCode).toBe(422);
      expect(res.json<{ errors: object }>().errors).toEqual({
        cursor: [bad.cursor === undefined ? 'The cursor field is required.' : 'The cursor is invalid.'],
      });
    }
  });

  it('replays from the beginning, and answers a cursor of a retired key 410 as the feed does', async () => {
    const { headers, receiver, endpoint, createLead } = await setup();
    const a = await createLead('Before the replay A');
    const b = await createLead('Before the replay B');
    await receiver.waitFor(() => receiver.received.length >= 2);
    const replay = (payload: Record<string, unknown>) =>
      t.app.inject({ method: 'POST', url: `/api/v2/webhook-endpoints/${endpoint.id}/replay`, headers, payload });
    const fromStart = await replay({ from_beginning: true });
    expect(fromStart.statusCode).toBe(202);
    const count = (id: string) => receiver.events<Event>().filter((event) => event.data.id === id).length;
    await receiver.waitFor(() => count(a) === 2 && count(b) === 2, 15_000, 'both leads sent again');
    // Records changed before the endpoint existed went out too (the fixture's user), all with new ids.
    await receiver.waitFor(() => receiver.events<Event>().some((event) => event.data.type === 'user'), 15_000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(receiver.received.length);

    for (const [payload, errors] of [
      [
        { from_beginning: true, cursor: 'q0vB3kF1c2Vy' },
        { cursor: ['Give either a cursor or from_beginning, not both.'] },
      ],
      [{ from_beginning: 'yes' }, { from_beginning: ['The from_beginning field must be true or false.'] }],
      [{ from_beginning: false }, { cursor: ['The cursor field is required.'] }],
    ] as const) {
      const refused = await replay(payload);
      expect(refused.statusCode).toBe(422);
      expect(refused.json<{ errors: object }>().errors).toEqual(errors);
    }

    const retired = Buffer.alloc(32, 98);
    await t.dataSource.query(`INSERT INTO cursor_keys (key_id) VALUES ($1) ON CONFLICT DO NOTHING`, [
      cursorKeyId(retired),
    ]);
    const cursor = new ChangeCursorCodec([retired]).encode({ xid: 1n, seq: 1n }, tenantOf(headers), [...CHANGE_TYPES]);
    const gone = await replay({ cursor });
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toEqual({
      message:
        'The cursor was written under an encryption key that has since been retired. Replay from a cursor ' +
        'GET /changes/cursor gives now, or from the beginning ({"from_beginning": true}).',
    });
  });

  it('rotates a secret on a POST with a JSON content type and no body', async () => {
    const { headers, endpoint } = await setup();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': '0' },
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json<{ data: { secret: string } }>().data.secret).toMatch(/^whsec_/);
    // As curl sends a POST without -d: a JSON content type, and neither a length nor a body.
    const bare = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(bare.statusCode).toBe(200);
    // The endpoint's delete takes the same empty body.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/v2/webhook-endpoints/${endpoint.id}`,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(deleted.statusCode).toBe(204);
    // A body that is there but is not JSON is still refused.
    const broken = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{',
    });
    expect(broken.statusCode).toBe(400);
  });

  it('signs with both the new and the old secret for a day after a rotation', async () => {
    const { headers, receiver, endpoint, createLead } = await setup();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v2/webhook-endpoints/${endpoint.id}/rotate-secret`,
      headers,
    });
    expect(rotated.statusCode).toBe(200);
    const secret = rotated.json<{ data: { secret: string } }>().data.secret;
    expect(secret).not.toBe(endpoint.secret);
    await createLead('Rotated');
    await receiver.waitFor(() => receiver.received.length >= 1);
    const [request] = receiver.received;
    if (!request) throw new Error('nothing received');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const hdrs = request.headers as Record<string, string>;
    expect(new Webhook(secret).verify(request.body, hdrs)).toMatchObject({ type: 'lead.upserted' });
    expect(new Webhook(endpoint.secret).verify(request.body, hdrs)).toMatchObject({ type: 'lead.upserted' });
    await t.dataSource.query(
      `UPDATE webhook_endpoints SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`,
      [endpoint.id],
    );
    await createLead('After the overlap');
    await receiver.waitFor(() => receiver.received.length >= 2);
    const later = receiver.received[1];
    expect(String(later?.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() =>
      new Webhook(endpoint.secret).verify(later?.body ?? '', later?.headers as Record<string, string>),
    ).toThrow();
  });

  it('counts deliveries in the metrics', async () => {
    const metrics = await metricsOf(t.app)?.registry.metrics();
    expect(metrics).toMatch(/finance_intake_outbound_webhook_deliveries_total\{outcome="delivered"\} [1-9]/);
    expect(metrics).toMatch(/finance_intake_outbound_webhook_deliveries_total\{outcome="http_error"\} [1-9]/);
    expect(metrics).toMatch(/finance_intake_outbound_webhook_delivery_latency_seconds_count [1-9]/);
  });
});
