import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { attribute, OtlpReceiver, type OtlpSpan } from '../helpers/otlp-receiver.js';
import { loadFixture, login, ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const LOG_MODULE_LOADS = resolve(import.meta.dirname, '../helpers/log-module-loads.mjs');

describe('OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let database: TestDatabase;
  let workDir: string;
  const { doc, tenant } = tenantDocument();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    await loadFixture(database, doc);
    workDir = mkdtempSync(join(tmpdir(), 'finance-intake-tracing-'));
  });
  afterAll(async () => {
    rmSync(workDir, { recursive: true, force: true });
    await database.release();
  });

  it('exports a span per request, named after its route, with its PostgreSQL spans under it', async () => {
    const receiver = new OtlpReceiver();
    const endpoint = await receiver.listen();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const modules = join(workDir, 'modules-traced.log');
    const service = ServiceProcess.start(
      serviceEnv(database, port, {
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
        MODULE_LOAD_LOG: modules,
      }),
      ['--import', LOG_MODULE_LOADS],
    );
    try {
      await service.waitFor(`${base}/health/live`);
      const token = await login(base, tenant.user.email, tenant.user.password);
      const recordId = randomUUID();
      const res = await fetch(`${base}/api/v2/people/${recordId}`, {
        headers: { authorization: `Bearer ${token}`, 'x-enterprise-id': tenant.enterpriseId },
      });
      expect(res.status).toBe(404);

      const isRequest = (s: OtlpSpan) => s.kind === 2 && attribute(s, 'http.route') === '/api/v2/people/:id';
      for (let i = 0; i < 100 && !receiver.spans.some(isRequest); i++) await new Promise((r) => setTimeout(r, 100));
      const request = receiver.spans.find(isRequest);
      expect(request?.name).toBe('GET /api/v2/people/:id');
      expect(request?.scope).toBe('@opentelemetry/instrumentation-http');
      // The token and membership look-ups, at least, ran as PostgreSQL spans under the request span.
      const queries = receiver.spans.filter(
        (s) => s.scope === '@opentelemetry/instrumentation-pg' && s.parentSpanId === request?.spanId,
      );
      expect(queries.filter((s) => s.name.startsWith('pg.query')).length).toBeGreaterThanOrEqual(2);
      expect(queries.every((s) => s.traceId === request?.traceId)).toBe(true);
      expect(queries.some((s) => attribute(s, 'db.system.name') === 'postgresql')).toBe(true);
      expect(receiver.paths.every((path) => path === '/v1/traces')).toBe(true);
      // The probes are not traced.
      expect(receiver.spans.some((s) => attribute(s, 'url.path')?.startsWith('/health'))).toBe(false);
      expect(readFileSync(modules, 'utf8')).toContain('/node_modules/@opentelemetry/sdk-node/');
      expect(await service.stop()).toBe(0);
    } finally {
      await service.stop();
      await receiver.close();
    }
  });

  it('loads no OpenTelemetry module when OTEL_EXPORTER_OTLP_ENDPOINT is unset, no Redis client without REDIS_URL, no webhook client before a delivery', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const modules = join(workDir, 'modules-untraced.log');
    const service = ServiceProcess.start(serviceEnv(database, port, { MODULE_LOAD_LOG: modules }), [
      '--import',
      LOG_MODULE_LOADS,
    ]);
    try {
      await service.waitFor(`${base}/health/live`);
      await login(base, tenant.user.email, tenant.user.password);
      const loaded = readFileSync(modules, 'utf8');
      // The hook sees the service's own modules (it works), and nothing of OpenTelemetry.
      expect(loaded).toContain('/dist/src/server.js');
      expect(loaded).not.toContain('opentelemetry');
      expect(loaded).not.toContain('import-in-the-middle');
      // A smaller heap to mark in every full collection: these load when first used.
      expect(loaded).not.toContain('/node_modules/ioredis/');
      expect(loaded).not.toContain('/node_modules/undici/');
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('warns once when spans cannot be sent, and stops within the usual bound', async () => {
    // An endpoint that accepts connections and never answers (a black hole).
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const hole = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((done) => hole.listen(0, '127.0.0.1', done));
    const address = hole.address();
    const holePort = typeof address === 'object' && address ? address.port : 0;
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(
      serviceEnv(database, port, {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${holePort}`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
    );
    try {
      await service.waitFor(`${base}/health/live`);
      // Several batches, each failing once the exporter's own timeout (10 s) has passed.
      for (let i = 0; i < 4; i++) {
        await fetch(`${base}/api/v2/users`);
        await new Promise((r) => setTimeout(r, 300));
      }
      const warnings = () =>
        service.jsonLines().filter((line) => String(line.msg).startsWith('Spans could not be sent'));
      for (let i = 0; i < 300 && warnings().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]).toMatchObject({ level: 40, endpoint: `http://127.0.0.1:${holePort}` });

      // A span still waiting to be sent: the stop does not wait for the exporter's timeout.
      await fetch(`${base}/api/v2/users`);
      const started = Date.now();
      expect(await service.stop()).toBe(0);
      expect(Date.now() - started).toBeLessThan(6_000);
      expect(warnings()).toHaveLength(1);
    } finally {
      await service.stop();
      for (const socket of sockets) socket.destroy();
      hole.close();
    }
  }, 60_000);
});
