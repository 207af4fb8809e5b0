import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createLead, enterpriseWithEndpoint } from '../helpers/webhook-endpoint.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Deliveries give way to a burst of requests: while the process serves WEBHOOK_YIELD_REQUESTS
 * requests at once (one here, a request whose body never finishes), no delivery round starts,
 * until the burst ends or has lasted WEBHOOK_YIELD_MAX_MS.
 */
describe.each([
  { name: 'until the requests are answered', maxMs: 60_000 },
  { name: 'for at most WEBHOOK_YIELD_MAX_MS', maxMs: 3_000 },
])('outbound webhooks yield to requests $name', ({ maxMs }) => {
  let t: TestApp;
  let worker: WebhookDeliveryWorker;
  let port = 0;
  const receiver = new WebhookReceiver();
  const held: Socket[] = [];
  let newLead: (title: string) => Promise<string>;
  let enterpriseId = '';

  beforeAll(async () => {
    t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_YIELD_REQUESTS: '2',
      WEBHOOK_YIELD_MAX_MS: String(maxMs),
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.getHttpServer().address() as AddressInfo).port;
    worker = t.app.get(WebhookDeliveryWorker);
    worker.start();
    const { headers, tenant } = await enterpriseWithEndpoint(t, {
      url: `${await receiver.start()}/hooks`,
      types: ['lead'],
    });
    newLead = (title) => createLead(t, headers, title);
    enterpriseId = tenant.enterpriseId;
  });
  afterEach(() => {
    for (const socket of held.splice(0)) socket.destroy();
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.stop();
    await t.close();
  });

  /** A request in flight until the socket is closed: its body never arrives. */
  async function holdRequest(): Promise<void> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('error', () => undefined);
    socket.write(
      'POST /api/v2/leads HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
    );
    held.push(socket);
    await settle(100);
  }

  const deliveredIds = () => receiver.events().map((event) => event.data.id);

  it('delivers at once while fewer requests than the threshold are in flight', async () => {
    await holdRequest();
    const id = await newLead('One request in flight');
    await receiver.waitFor(() => deliveredIds().includes(id), 10_000);
  });

  it('starts no round while the requests pile up, and delivers once they are answered or the wait ran out', async () => {
    await holdRequest();
    await holdRequest();
    const id = await newLead('During a burst');
    await settle(1_000);
    expect(deliveredIds()).not.toContain(id);
    if (maxMs > 10_000) {
      const released = Date.now();
      for (const socket of held.splice(0)) socket.destroy();
      await receiver.waitFor(() => deliveredIds().includes(id), 10_000);
      expect(Date.now() - released).toBeLessThan(10_000);
    } else {
      // Still busy: the round runs anyway once the longest wait has passed.
      await receiver.waitFor(() => deliveredIds().includes(id), 15_000);
      expect(held.every((socket) => !socket.destroyed)).toBe(true);
    }
  }, 30_000);

  // With the longest wait far away, what stops the round can only be the requests piling up.
  if (maxMs > 10_000)
    it('stops a round under way after its current batch of 100 once the requests pile up', async () => {
      const before = receiver.received.length;
      receiver.answer = () => ({ status: 200, delayMs: 20 });
      try {
        await t.dataSource.query(
          `INSERT INTO leads (enterprise_id, title, person_name) SELECT $1, 'Backlog ' || i, 'Pat' FROM generate_series(1, 150) i`,
          [enterpriseId],
        );
        await receiver.waitFor(() => receiver.received.length > before, 10_000);
        await holdRequest();
        await holdRequest();
        await receiver.waitFor(() => receiver.received.length - before >= 100, 20_000);
        await settle(1_500);
        expect(receiver.received.length - before).toBe(100);
        for (const socket of held.splice(0)) socket.destroy();
        await receiver.waitFor(() => receiver.received.length - before >= 150, 20_000);
      } finally {
        receiver.answer = () => ({ status: 200 });
      }
    }, 60_000);
});
