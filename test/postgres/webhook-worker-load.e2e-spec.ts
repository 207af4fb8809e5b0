import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import {
  WEBHOOK_APPLICATION_NAME,
  WebhookDeliveryWorker,
} from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { enterpriseWithEndpoint } from '../helpers/webhook-endpoint.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * What the delivery worker costs the requests. Its statements run on a pool of its own
 * (WEBHOOK_DATABASE_POOL_MAX), named apart in pg_stat_activity, so deliveries go on while every
 * connection of the requests' pool is taken, and never take more than their own pool. And an
 * endpoint whose next entries wait behind an open writer of its enterprise is looked at again
 * at the next poll, not claimed and read again and again while that writer stays open.
 */
const POLL_MS = 200;

describe('the outbound webhook worker beside the requests', () => {
  let t: TestApp;
  let worker: WebhookDeliveryWorker;
  const receiver = new WebhookReceiver();
  let base: string | undefined;

  beforeAll(async () => {
    t = await createTestApp({
      DATABASE_POOL_MAX: '2',
      WEBHOOK_DATABASE_POOL_MAX: '1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: String(POLL_MS),
    });
    worker = t.app.get(WebhookDeliveryWorker);
  });
  afterAll(async () => {
    await worker.stop();
    await receiver.stop();
    await t.close();
  });

  /** A fresh enterprise with a member logged in and an endpoint on the receiver. */
  async function setup() {
    base ??= await receiver.start();
    return enterpriseWithEndpoint(t, { url: `${base}/hooks`, types: ['lead'] });
  }

  it('delivers while every connection of the requests pool is held, on connections named apart', async () => {
    const { tenant } = await setup();

    // Every connection of the requests' pool taken, as under a burst of requests.
    const requestsPool = (t.dataSource.driver as unknown as { master: pg.Pool }).master;
    const held = await Promise.all([requestsPool.connect(), requestsPool.connect()]);
    const outside = new pg.Client({ connectionString: t.database.url });
    await outside.connect();
    try {
      expect(requestsPool.totalCount).toBe(2);
      expect(requestsPool.idleCount).toBe(0);
      const [lead] = (
        await outside.query<{ id: string }>(
          `INSERT INTO leads (enterprise_id, title, person_name) VALUES ($1, 'Pooled', 'Pat') RETURNING id`,
          [tenant.enterpriseId],
        )
      ).rows;
      worker.start();
      await receiver.waitFor(() => receiver.events().some((event) => event.data.id === lead?.id), 10_000);

      const { rows: sessions } = await outside.query<{ application_name: string; n: number }>(
        `SELECT application_name, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY application_name`,
      );
      expect(sessions.find((s) => s.application_name === WEBHOOK_APPLICATION_NAME)?.n).toBe(1);
      expect(sessions.find((s) => s.application_name === 'finance-intake')?.n).toBe(2);
    } finally {
      for (const client of held) client.release();
      await outside.end();
    }
  });

  it('does not claim an endpoint again and again while an open writer holds its next entries back', async () => {
    const { tenant, headers } = await setup();
    const holder = new pg.Client({ connectionString: t.database.url });
    await holder.connect();
    try {
      // An open writer of the enterprise: entries committed after its position wait for it.
      await holder.query('BEGIN');
      await holder.query(`INSERT INTO leads (enterprise_id, title, person_name) VALUES ($1, 'Held', 'Pat')`, [
        tenant.enterpriseId,
      ]);
      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers,
        payload: { title: 'Behind the held one', person_name: 'Pat' },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ data: { id: string } }>().data.id;
      worker.start();
      // Each look at the endpoint reads the horizon, which takes a number of change_log_seq.
      const taken = async () =>
        Number((await holder.query<{ n: string }>(`SELECT last_value::text AS n FROM change_log_seq`)).rows[0]?.n);
      await new Promise((r) => setTimeout(r, POLL_MS * 2));
      const first = await taken();
      await new Promise((r) => setTimeout(r, POLL_MS * 5));
      const looks = (await taken()) - first;
      // One look per poll (about 5), not one after the other.
      expect(looks).toBeGreaterThanOrEqual(1);
      expect(looks).toBeLessThanOrEqual(12);
      expect(receiver.events().some((event) => event.data.id === id)).toBe(false);
      await holder.query('COMMIT');
      await receiver.waitFor(() => receiver.events().some((event) => event.data.id === id), 10_000);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
  });
});
