import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { adminUrl } from '../helpers/test-database-names.mjs';

/**
 * Connections killed on a real PostgreSQL server (pg_terminate_backend, as an operator or a
 * failover does). Only this file's own database is touched: the backends are picked by its
 * name. Needs DATABASE_URL (jest.config.js leaves this folder out without it).
 */
describe('killed database connections', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token = '';
  let admin: pg.Client;
  let database = '';

  beforeAll(async () => {
    t = await createTestApp();
    database = new URL(t.database.url).pathname.slice(1);
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    admin = new pg.Client(adminUrl(process.env.DATABASE_URL ?? ''));
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await t.close();
  });

  /**
   * Runs SQL on a connection opened for it: the pooled ones of the harness may be among those
   * a kill just terminated.
   */
  async function freshQuery<Row extends object = object>(sql: string, params: unknown[] = []): Promise<Row[]> {
    const client = new pg.Client(t.database.url);
    await client.connect();
    try {
      return (await client.query<Row>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Terminates every backend connected to this file's database; returns how many. */
  async function killConnections(): Promise<number> {
    const { rows } = await admin.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
      [database],
    );
    return rows.filter((r) => r.killed).length;
  }

  it('answers 200 or a quick 503 right after its idle connections were killed, then 200 again by itself', async () => {
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    await Promise.all(
      Array.from({ length: 10 }, () => t.app.inject({ method: 'GET', url: '/api/v2/people', headers })),
    );
    expect(await killConnections()).toBeGreaterThan(0);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = Date.now();
      const res = await t.app.inject({ method: 'GET', url: '/api/v2/people', headers });
      statuses.push(res.statusCode);
      expect(Date.now() - started).toBeLessThan(2_000);
      if (res.statusCode === 503) expect(res.json()).toEqual({ message: 'The service is temporarily unavailable.' });
    }
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.slice(-5)).toEqual([200, 200, 200, 200, 200]);
  });

  it('a lead create whose connection is killed mid-statement is a 503 and stores nothing; the others store whole', async () => {
    // Slow every insert down so the kill lands while statements are running.
    await freshQuery(`
      CREATE FUNCTION slow_lead_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(0.5); RETURN NEW; END $$`);
    await freshQuery(
      `CREATE TRIGGER slow_lead_insert BEFORE INSERT ON leads FOR EACH ROW EXECUTE FUNCTION slow_lead_insert()`,
    );
    try {
      const headers = apiHeaders('v1', token, tenant.enterpriseId);
      const bodies = Array.from({ length: 10 }, (_, i) => ({
        Title: `Killed ${i}`,
        PersonName: `Person ${i}`,
        Description: `Description ${i}`,
        deposit: i * 100,
        unknown_key: { kept: i },
      }));
      const answers = bodies.map((payload) => t.app.inject({ method: 'POST', url: '/api/v1/leads', headers, payload }));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await killConnections()).toBeGreaterThan(0);
      const results = await Promise.all(answers);
      const statuses = results.map((r) => r.statusCode);
      expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
      expect(statuses).toContain(503);

      const rows = await freshQuery<{
        title: string;
        person_name: string;
        description: string;
        deposit: number;
        extra: unknown;
      }>(
        `SELECT title, person_name, description, deposit, extra_input AS extra FROM leads WHERE title LIKE 'Killed %'`,
      );
      const stored = new Map(rows.map((row) => [row.title, row]));
      results.forEach((res, i) => {
        if (res.statusCode === 503) {
          expect(stored.has(`Killed ${i}`)).toBe(false);
        } else {
          expect(stored.get(`Killed ${i}`)).toEqual({
            title: `Killed ${i}`,
            person_name: `Person ${i}`,
            description: `Description ${i}`,
            deposit: i * 100,
            extra: { unknown_key: { kept: i } },
          });
        }
      });
    } finally {
      await freshQuery(`DROP TRIGGER IF EXISTS slow_lead_insert ON leads`);
      await freshQuery(`DROP FUNCTION IF EXISTS slow_lead_insert()`);
    }
    const after = await t.app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title: 'After the kill', person: 'Jane' },
    });
    expect(after.statusCode).toBe(201);
  });
});
