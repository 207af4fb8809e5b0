import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { withStatements } from '../helpers/statements.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { apiHeaders, importFixture, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { createLead, enterpriseWithEndpoint } from '../helpers/webhook-endpoint.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const POLL_MS = 20;
const IDLE_MAX_MS = 640;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** An application whose worker polls every `pollMs` at first and at most every `idleMaxMs` when idle. */
function idleWorkerApp(idleMaxMs: number, pollMs = POLL_MS) {
  const parts = { t: undefined as unknown as TestApp, worker: undefined as unknown as WebhookDeliveryWorker };
  const receiver = new WebhookReceiver();
  beforeAll(async () => {
    parts.t = await createTestApp({
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: String(pollMs),
      WEBHOOK_IDLE_POLL_MAX_MS: String(idleMaxMs),
    });
    parts.worker = parts.t.app.get(WebhookDeliveryWorker);
  });
  afterAll(async () => {
    await parts.worker.stop();
    await receiver.stop();
    await parts.t.close();
  });
  return { parts, receiver };
}

describe('an idle delivery worker', () => {
  const { parts, receiver } = idleWorkerApp(IDLE_MAX_MS);

  it('looks less and less often while it finds nothing, up to WEBHOOK_IDLE_POLL_MAX_MS between looks', async () => {
    const looks = jest.spyOn(parts.worker, 'tick');
    try {
      parts.worker.start();
      await sleep(3000);
      // 20, 40, 80, 160, 320, 640, 640, 640 ... ms: about 8 looks in 3 s, where a fixed poll
      // interval made 150.
      expect(looks.mock.calls.length).toBeGreaterThanOrEqual(5);
      expect(looks.mock.calls.length).toBeLessThanOrEqual(10);
    } finally {
      looks.mockRestore();
    }
  });

  it('looks at once after a write it answered, and delivers its change without waiting out the idle wait', async () => {
    const url = `${await receiver.start()}/hooks`;
    const { headers } = await enterpriseWithEndpoint(parts.t, { url });
    await sleep(3 * IDLE_MAX_MS); // idle again, at the longest wait
    const looks = jest.spyOn(parts.worker, 'tick');
    try {
      await createLead(parts.t, headers, 'Wakes the worker');
      // Counted from the write's answer (the wake comes with it), not from the request: on a
      // loaded machine the create alone can take a good part of the idle wait.
      const answered = Date.now();
      await receiver.waitFor(
        () => receiver.received.some((request) => request.body.includes('Wakes the worker')),
        5000,
      );
      expect(Date.now() - answered).toBeLessThan(IDLE_MAX_MS);
      expect(looks.mock.calls.length).toBeGreaterThanOrEqual(1);
    } finally {
      looks.mockRestore();
    }
  });
});

describe('a delivery worker while no endpoint exists at all', () => {
  const { parts, receiver } = idleWorkerApp(160);

  it('sends no statement on a timer once its waits have grown, and an endpoint created through the process wakes it', async () => {
    parts.worker.start();
    await sleep(1500); // 20, 40, 80, 160 ms, then the look that finds no endpoint at all
    const { sql } = await withStatements(parts.t.dataSource, () => sleep(2000));
    // With a look every 160 ms there would be a dozen claims in these 2 s.
    expect(sql.filter((statement) => /webhook_endpoints/.test(statement))).toEqual([]);

    const looks = jest.spyOn(parts.worker, 'tick');
    try {
      const url = `${await receiver.start()}/hooks`;
      const { headers } = await enterpriseWithEndpoint(parts.t, { url });
      await createLead(parts.t, headers, 'After the long sleep');
      await receiver.waitFor(
        () => receiver.received.some((request) => request.body.includes('After the long sleep')),
        5000,
      );
      expect(looks.mock.calls.length).toBeGreaterThanOrEqual(1);
    } finally {
      looks.mockRestore();
    }
  });
});

describe('a delivery worker under a stream of writes that give it nothing to send', () => {
  const pollMs = 200;
  const { parts } = idleWorkerApp(16 * pollMs, pollMs);

  it('looks once per poll interval, not once per write', async () => {
    const { doc, tenant } = tenantDocument();
    await importFixture(parts.t, doc);
    const headers = apiHeaders(
      'v2',
      await loginToken(parts.t.app, tenant.user.email, tenant.user.password),
      tenant.enterpriseId,
    );
    parts.worker.start();
    await sleep(3 * pollMs); // its first looks found nothing: the waits are growing
    const looks = jest.spyOn(parts.worker, 'tick');
    try {
      const started = Date.now();
      let writes = 0;
      while (Date.now() - started < 1500) {
        await createLead(parts.t, headers, `Write ${writes}`);
        writes += 1;
      }
      const elapsed = Date.now() - started;
      // Each write wakes the worker; a wake that looked at once made one look per write here.
      expect(writes).toBeGreaterThan(20);
      expect(looks.mock.calls.length).toBeLessThanOrEqual(Math.ceil(elapsed / pollMs) + 1);
    } finally {
      looks.mockRestore();
    }
  });
});
