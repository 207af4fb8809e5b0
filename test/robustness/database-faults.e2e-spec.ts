import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { loadConfig } from '../../src/config/app-config.js';
import { selectRows } from '../../src/database/sql.js';
import { DisposablePostgres } from '../helpers/disposable-postgres.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

/**
 * The database goes away under a running service (its own PGlite server, stopped and started
 * again on the same port): requests answer 503 {message} quickly, nothing crashes, and the
 * service recovers by itself. Killed connections on a real server: test/postgres/.
 */
const UNAVAILABLE = { message: 'The service is temporarily unavailable.' };

describe('database outage', () => {
  let postgres: DisposablePostgres;
  let app: NestFastifyApplication;
  let tenant: Tenant;
  let token = '';

  beforeAll(async () => {
    postgres = await DisposablePostgres.start();
    const config = loadConfig({
      DATABASE_URL: postgres.url,
      DATABASE_POOL_MAX: '1',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: process.env.FAULT_LOG ?? 'silent',
    });
    app = await createApp(config, { url: postgres.url, poolMax: 1 });
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(
      { dataSource: app.get<DataSource>(getDataSourceToken()), cipher: app.get(FieldCipher) },
      fixture.doc,
    );
    token = await loginToken(app, tenant.user.email, tenant.user.password);
  });

  afterAll(async () => {
    await postgres.resume();
    await app.close();
    await postgres.close();
  });

  const requests = () =>
    [
      { method: 'GET', url: '/api/v2/leads', headers: apiHeaders('v2', token, tenant.enterpriseId) },
      { method: 'GET', url: '/api/v1/people?page=2', headers: apiHeaders('v1', token, tenant.enterpriseId) },
      { method: 'GET', url: '/api/v2/enterprises', headers: apiHeaders('v2', token) },
      {
        method: 'POST',
        url: '/api/v2/leads',
        headers: apiHeaders('v2', token, tenant.enterpriseId),
        payload: { title: 'During the outage', person: 'Jane' },
      },
      {
        method: 'POST',
        url: '/api/v1/login',
        payload: { email: tenant.user.email, password: tenant.user.password },
      },
    ] as const;

  it('answers 503 {message} with Retry-After, quickly, on every kind of route while it is down', async () => {
    await postgres.stop();
    for (const request of requests()) {
      const started = Date.now();
      const res = await app.inject(request);
      const elapsed = Date.now() - started;
      expect([request.url, res.statusCode]).toEqual([request.url, 503]);
      expect(res.json()).toEqual(UNAVAILABLE);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres|connect/i);
      expect(elapsed).toBeLessThan(2_000);
    }
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(503);
  });

  it('recovers by itself when the database is back, without a restart', async () => {
    await postgres.resume();
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    let status = 0;
    const deadline = Date.now() + 10_000;
    while (status !== 200 && Date.now() < deadline) {
      status = (await app.inject({ method: 'GET', url: '/api/v2/leads', headers })).statusCode;
      expect([200, 503]).toContain(status);
    }
    expect(status).toBe(200);
    for (const request of requests()) {
      const res = await app.inject(request);
      expect([request.url, res.statusCode]).toEqual([
        request.url,
        request.method === 'POST' && request.url.endsWith('leads') ? 201 : 200,
      ]);
    }
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
  });

  it('a burst of lead creates cut by an outage: each is stored whole (201) or not at all (503)', async () => {
    const dataSource = app.get<DataSource>(getDataSourceToken());
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    const bodies = Array.from({ length: 40 }, (_, i) => ({
      title: `Burst ${i}`,
      person: `Person ${i}`,
      description: `Description ${i}`,
      purchase_price: `${i}000.00`,
    }));
    const answers = bodies.map((payload) => app.inject({ method: 'POST', url: '/api/v2/leads', headers, payload }));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await postgres.stop();
    const results = await Promise.all(answers);
    await postgres.resume();

    const statuses = results.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
    expect(statuses).toContain(503);
    const rows = await waitForRows(dataSource);
    const created = new Set(
      results.filter((r) => r.statusCode === 201).map((r) => r.json<{ data: { id: string } }>().data.id),
    );
    for (const id of created) expect(rows.has(id)).toBe(true);
    for (const [id, row] of rows) {
      const i = Number(row.title.replace('Burst ', ''));
      // Whole: every field of its request, never a part of one.
      expect({ id, ...row }).toEqual({
        id,
        title: `Burst ${i}`,
        person_name: `Person ${i}`,
        description: `Description ${i}`,
        purchase_price: `${i}000.00`,
      });
    }
  });
});

type BurstRow = { title: string; person_name: string; description: string; purchase_price: string };

/** The burst's rows, once the database answers again. */
async function waitForRows(dataSource: DataSource): Promise<Map<string, BurstRow>> {
  for (let attempt = 0; ; attempt++) {
    try {
      const rows = await selectRows<BurstRow & { id: string }>(
        dataSource,
        `SELECT id, title, person_name, description, purchase_price #>> '{}' AS purchase_price FROM leads WHERE title LIKE 'Burst %'`,
      );
      return new Map(rows.map(({ id, ...row }) => [id, row]));
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
