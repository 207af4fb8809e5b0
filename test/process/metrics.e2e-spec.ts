import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { childPids, signalProcess } from '../helpers/process-tree.js';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { loadFixture, login, ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** The value of one sample line (`name{labels} value`) of a scrape; undefined when absent. */
function sample(scrape: string, series: string): number | undefined {
  const line = scrape.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** GET on a connection of its own (no keep-alive), so a cluster spreads them over its workers. */
function getOnNewConnection(url: string): Promise<number> {
  return new Promise((done, fail) => {
    httpRequest(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    })
      .on('error', fail)
      .end();
  });
}

describe('Prometheus metrics (METRICS_PORT)', () => {
  let database: TestDatabase;
  const { doc, tenant } = tenantDocument();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    await loadFixture(database, doc);
  });
  afterAll(async () => {
    await database.release();
  });

  it('serves route-template histograms, pool, rate-limit, webhook and login figures on its own port only', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(
      serviceEnv(database, port, { METRICS_PORT: String(metricsPort), RATE_LIMIT_PER_MINUTE: '6' }),
    );
    try {
      await service.waitFor(`${base}/health/live`);
      const token = await login(base, tenant.user.email, tenant.user.password);
      const wrong = await fetch(`${base}/api/v2/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: tenant.user.email, password: 'not-the-password' }),
      });
      expect(wrong.status).toBe(401);
      const webhook = await fetch(`${base}/api/webhooks/signprovider-a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signprovidera-signature': '00' },
        body: '{"documentId":"D-1","event":"signed"}',
      });
      expect(webhook.status).toBe(401);

      const recordId = randomUUID();
      const headers = { authorization: `Bearer ${token}`, 'x-enterprise-id': tenant.enterpriseId };
      expect((await fetch(`${base}/api/v2/people/${recordId}`, { headers })).status).toBe(404);
      const unknownPath = `${base}/api/v2/no-such-resource/${recordId}`;
      expect((await fetch(unknownPath, { headers })).status).toBe(404);
      // The user's budget is 6 a minute: the 7th call is refused.
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${base}/api/v2/people`, { headers })).status);
      expect(statuses).toContain(429);

      // Never on the API's port.
      expect((await fetch(`${base}/metrics`)).status).toBe(404);

      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toContain('text/plain');
      const text = await scrape.text();

      expect(
        sample(text, 'http_request_duration_seconds_count{method="GET",route="/api/v2/people/:id",status_code="404"}'),
      ).toBe(1);
      expect(
        sample(text, 'http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}'),
      ).toBeGreaterThanOrEqual(1);
      expect(
        sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/v2/login",status_code="200"}'),
      ).toBe(1);
      expect(sample(text, 'finance_intake_login_failures_total')).toBe(1);
      expect(
        sample(text, 'finance_intake_webhook_deliveries_total{provider="signprovider-a",outcome="bad_signature"}'),
      ).toBe(1);
      expect(sample(text, 'finance_intake_rate_limit_rejections_total')).toBe(statuses.filter((s) => s === 429).length);
      expect(sample(text, 'finance_intake_db_pool_connections')).toBe(1);
      expect(sample(text, 'finance_intake_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'finance_intake_db_pool_waiting_requests')).toBe(0);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(text).toContain('nodejs_eventloop_lag_seconds');

      // No raw path, id, email or token anywhere in the scrape.
      for (const leak of [
        recordId,
        tenant.enterpriseId,
        tenant.user.id,
        tenant.user.email,
        token,
        'no-such-resource',
      ]) {
        expect(text).not.toContain(leak);
      }
      expect(await service.stop()).toBe(0);
    } finally {
      await service.stop();
    }
  });

  it('opens no metrics listener when METRICS_PORT is unset', async () => {
    const port = await freePort();
    const service = ServiceProcess.start(serviceEnv(database, port, { LOG_LEVEL: 'info' }));
    try {
      await service.waitFor(`http://127.0.0.1:${port}/health/live`);
      const pid = String(service.child.pid);
      // Every TCP port the process listens on: the API's only.
      const { execFileSync } = await import('node:child_process');
      const listening = execFileSync('ss', ['-ltnpH'])
        .toString()
        .split('\n')
        .filter((line) => line.includes(`pid=${pid},`))
        .map((line) => Number(/:(\d+)\s/.exec(line)?.[1]));
      expect(listening).toEqual([port]);
      expect(service.output).not.toContain('Metrics listener');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('sums the figures of every worker in one scrape with WEB_CONCURRENCY=2', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(
      serviceEnv(database, port, { METRICS_PORT: String(metricsPort), WEB_CONCURRENCY: '2' }),
    );
    try {
      await service.waitFor(`${base}/health/live`);
      // Readiness reads the database, so each worker that answers one opens its pooled connection
      // (DATABASE_POOL_MAX=1). Batches on new connections until both workers have answered (the
      // second may start listening a little later), then the scrape must count every one.
      let sent = 0;
      let text = '';
      for (let batch = 0; batch < 30; batch++) {
        const answers: number[] = [];
        for (let i = 0; i < 10; i++) answers.push(await getOnNewConnection(`${base}/health/ready`));
        expect(answers).toEqual(Array(10).fill(200));
        sent += 10;
        text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        if (sample(text, 'finance_intake_db_pool_connections') === 2) break;
      }
      // Two workers' pools, one connection each, and every answer of either worker counted.
      expect(sample(text, 'finance_intake_db_pool_connections')).toBe(2);
      expect(
        sample(text, 'http_request_duration_seconds_count{method="GET",route="/health/ready",status_code="200"}'),
      ).toBe(sent);
      expect(await service.stop()).toBe(0);
    } finally {
      await service.stop();
    }
  });

  it('answers within the scrape timeout with the workers that answered and counts the one that did not', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(
      serviceEnv(database, port, { METRICS_PORT: String(metricsPort), WEB_CONCURRENCY: '2' }),
    );
    const workers = (): number[] => childPids(service.child.pid ?? 0);
    let stopped: number | undefined;
    try {
      await service.waitFor(`${base}/health/live`);
      for (let i = 0; i < 100 && workers().length < 2; i++) await new Promise((r) => setTimeout(r, 100));
      // Both workers answer a scrape once they are up.
      let text = '';
      for (let i = 0; i < 100; i++) {
        text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        if (sample(text, 'finance_intake_metrics_workers_unanswered') === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(sample(text, 'finance_intake_metrics_workers_unanswered')).toBe(0);
      const bothWorkers = sample(text, 'process_resident_memory_bytes') ?? 0;

      // A worker that cannot answer (stopped, as one busy restarting or stuck would be).
      stopped = workers()[0];
      expect(stopped).toBeDefined();
      signalProcess(stopped, 'SIGSTOP');
      const started = Date.now();
      const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, {
        headers: { 'x-prometheus-scrape-timeout-seconds': '2' },
      });
      const took = Date.now() - started;
      expect(scrape.status).toBe(200);
      expect(took).toBeLessThan(2_000);
      const partial = await scrape.text();
      expect(sample(partial, 'finance_intake_metrics_workers_unanswered')).toBe(1);
      // The figures are the other worker's alone.
      expect(sample(partial, 'process_resident_memory_bytes')).toBeLessThan(bothWorkers);
      expect(partial).toContain('nodejs_eventloop_lag_seconds');
    } finally {
      if (stopped !== undefined) process.kill(stopped, 'SIGCONT');
      expect(await service.stop()).toBe(0);
    }
  });
});
