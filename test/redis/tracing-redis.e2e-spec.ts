import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { OtlpReceiver, type OtlpSpan } from '../helpers/otlp-receiver.js';
import { loadFixture, login, ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * ioredis is imported from an ES module, which require's hook never sees: its spans prove the
 * ESM loader hook tracing registers is in place.
 */
describe('OpenTelemetry traces of Redis calls', () => {
  let database: TestDatabase;
  const { doc, tenant } = tenantDocument();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    await loadFixture(database, doc);
  });
  afterAll(async () => {
    await database.release();
  });

  it('puts the rate-limit store calls under the request span', async () => {
    const receiver = new OtlpReceiver();
    const endpoint = await receiver.listen();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(
      serviceEnv(database, port, {
        REDIS_URL,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
    );
    try {
      await service.waitFor(`${base}/health/ready`);
      await login(base, tenant.user.email, tenant.user.password);
      const isLogin = (s: OtlpSpan) => s.kind === 2 && s.name === 'POST /api/v2/login';
      for (let i = 0; i < 100 && !receiver.spans.some(isLogin); i++) await new Promise((r) => setTimeout(r, 100));
      const request = receiver.spans.find(isLogin);
      expect(request).toBeDefined();
      const redisCalls = receiver.spans.filter(
        (s) => s.scope === '@opentelemetry/instrumentation-ioredis' && s.parentSpanId === request?.spanId,
      );
      expect(redisCalls.length).toBeGreaterThanOrEqual(1);
      expect(await service.stop()).toBe(0);
    } finally {
      await service.stop();
      await receiver.close();
    }
  });
});
