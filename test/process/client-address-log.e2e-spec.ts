import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { loadFixture, ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

interface LogLine {
  level: number;
  msg: string;
  req?: { id?: string; url?: string; remoteAddress?: string };
  res?: { statusCode?: number };
}

const PROXIED_CLIENT = '203.0.113.7';

describe('the client address in request lines and failed logins', () => {
  let database: TestDatabase;
  const { doc, tenant } = tenantDocument();
  beforeAll(async () => {
    database = await acquireTestDatabase();
    await loadFixture(database, doc);
  });
  afterAll(async () => {
    await database.release();
  });

  /** A wrong login and a list call through the given service, then its log lines by request id. */
  async function trial(trustProxy: boolean): Promise<LogLine[]> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = serviceEnv(database, port, { LOG_LEVEL: 'info', ...(trustProxy ? { TRUST_PROXY: 'true' } : {}) });
    const service = ServiceProcess.start(env);
    try {
      await service.waitFor(`${base}/health/live`);
      const wrong = await fetch(`${base}/api/v2/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': PROXIED_CLIENT,
          'x-request-id': 'wrong-login',
        },
        body: JSON.stringify({ email: tenant.user.email, password: 'not-the-password' }),
      });
      expect(wrong.status).toBe(401);
      const list = await fetch(`${base}/api/v2/enterprises`, {
        headers: { 'x-forwarded-for': PROXIED_CLIENT, 'x-request-id': 'anonymous-list' },
      });
      expect(list.status).toBe(401);
      await new Promise((r) => setTimeout(r, 200));
      return service.jsonLines() as unknown as LogLine[];
    } finally {
      expect(await service.stop()).toBe(0);
    }
  }

  it('logs the X-Forwarded-For client with TRUST_PROXY=true, and a warning for the failed login', async () => {
    const lines = await trial(true);
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed.find((line) => line.req?.id === 'anonymous-list')?.req?.remoteAddress).toBe(PROXIED_CLIENT);
    expect(completed.find((line) => line.req?.id === 'wrong-login')?.req?.remoteAddress).toBe(PROXIED_CLIENT);
    const failed = lines.filter((line) => line.msg === 'login failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ level: 40, req: { id: 'wrong-login', remoteAddress: PROXIED_CLIENT } });
    // The attempted email and password stay out of the logs.
    expect(JSON.stringify(lines)).not.toContain(tenant.user.email);
    expect(JSON.stringify(lines)).not.toContain('not-the-password');
  });

  it("logs the socket's address and ignores X-Forwarded-For without TRUST_PROXY", async () => {
    const lines = await trial(false);
    const completed = lines.filter((line) => line.msg === 'request completed');
    expect(completed.find((line) => line.req?.id === 'anonymous-list')?.req?.remoteAddress).toBe('127.0.0.1');
    const failed = lines.find((line) => line.msg === 'login failed');
    expect(failed?.req?.remoteAddress).toBe('127.0.0.1');
    expect(JSON.stringify(lines)).not.toContain(PROXIED_CLIENT);
  });
});
