import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { PoolReader } from '../../src/database/pool-reader.js';
import { apiHeaders, importFixture, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The request path's reads are named prepared statements on a PostgreSQL server (parsed and
 * planned once per connection), unnamed with DATABASE_PREPARED_STATEMENTS=false and always on
 * the embedded server, whose connections share one session. One pool connection, so the
 * statements a request prepared are the ones `pg_prepared_statements` lists.
 */
describe('prepared statements of the request path', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  async function preparedAfterReads(
    env: Record<string, string>,
    url = '/api/v2/people',
  ): Promise<{ name: string; statement: string }[]> {
    // No caches: the second request reads the page again on the one connection.
    t = await createTestApp({ DATABASE_POOL_MAX: '1', PAGE_CACHE_MB: '0', RECORD_CACHE_MB: '0', ...env });
    const { doc, tenant } = tenantDocument();
    const person = { id: randomUUID(), enterprise_id: tenant.enterpriseId, first_name: 'Ada', last_name: 'Lovelace' };
    await importFixture(t, { ...doc, people: [person] });
    const token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({ url, headers: apiHeaders('v2', token, tenant.enterpriseId) });
      expect(res.statusCode).toBe(200);
    }
    const rows = (await t.app.get(PoolReader).query('SELECT name, statement FROM pg_prepared_statements')) as {
      name: string;
      statement: string;
    }[];
    return rows.filter((row) => row.name.startsWith('fi_'));
  }

  it('names the token look-up and the list read, unless switched off or embedded', async () => {
    const prepared = await preparedAfterReads({});
    if (t?.database.embedded) {
      expect(prepared).toEqual([]);
      return;
    }
    expect(prepared.some((row) => row.statement.includes('access_tokens'))).toBe(true);
    expect(prepared.some((row) => row.statement.includes('FROM people p'))).toBe(true);
    // One name per text: the second request reused the first one's statements.
    expect(new Set(prepared.map((row) => row.statement)).size).toBe(prepared.length);
  });

  it("names a change feed page's reads, in its snapshot's transaction too", async () => {
    const prepared = await preparedAfterReads({}, '/api/v2/changes?types=person');
    if (t?.database.embedded) {
      expect(prepared).toEqual([]);
      return;
    }
    const statements = prepared.map((row) => row.statement);
    expect(statements.some((sql) => sql.includes('change_log_horizon'))).toBe(true);
    expect(statements.some((sql) => sql.includes('FROM change_log c'))).toBe(true);
    expect(statements.some((sql) => sql.includes('FROM people p WHERE p.id = ANY'))).toBe(true);
    expect(new Set(statements).size).toBe(prepared.length);
  });

  it('prepares nothing with DATABASE_PREPARED_STATEMENTS=false', async () => {
    expect(await preparedAfterReads({ DATABASE_PREPARED_STATEMENTS: 'false' })).toEqual([]);
  });
});
