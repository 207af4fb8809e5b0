import { randomUUID } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, importFixture, type Tenant } from '../helpers/fixtures.js';
import { withStatements } from '../helpers/statements.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

type Version = 'v1' | 'v2';

/** Headers that differ between any two answers (the request's id, the rate limit left, the date). */
const PER_REQUEST = new Set(['x-request-id', 'x-ratelimit-remaining', 'date']);

function stableHeaders(headers: Record<string, unknown>): [string, unknown][] {
  return Object.entries(headers).filter(([name]) => !PER_REQUEST.has(name));
}

describe('page cache: a list page kept under its ETag', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  const ids = { person: randomUUID(), phone: randomUUID(), lead: randomUUID(), application: randomUUID() };
  const quote = randomUUID();

  const suite = apiSuite({
    records: (tenant) => ({
      people: [
        {
          id: ids.person,
          enterprise_id: tenant.enterpriseId,
          first_name: 'Zoë',
          last_name: 'Citizen',
          phone_numbers: [{ id: ids.phone, type: 'mobile', number: '0400 000 000' }],
        },
        // Older people, so a page is above the compression threshold.
        ...Array.from({ length: 5 }, (_, i) => ({
          id: randomUUID(),
          enterprise_id: tenant.enterpriseId,
          last_name: 'Citizen',
          created_at: `2020-01-0${i + 1}T00:00:00.000Z`,
        })),
      ],
      applications: [{ id: ids.application, enterprise_id: tenant.enterpriseId }],
      quotes: [
        {
          id: quote,
          enterprise_id: tenant.enterpriseId,
          application_id: ids.application,
          is_active: true,
          calculation: { financier: 'Example Bank' },
        },
      ],
      leads: [{ id: ids.lead, enterprise_id: tenant.enterpriseId, title: 'Car loan', person_name: 'Jane' }],
    }),
  });
  beforeAll(() => void ({ t, tenant, token } = suite));

  /** One GET and the number of SQL statements it sent. */
  async function get(version: Version, path: string, extra: Record<string, string> = {}) {
    const { result: res, sql } = await withStatements(t.dataSource, () =>
      t.app.inject({
        method: 'GET',
        url: `/api/${version}/${path}`,
        headers: { ...apiHeaders(version, token, tenant.enterpriseId), ...extra },
      }),
    );
    return { res, statements: sql.length };
  }

  it.each(['v1', 'v2'] as const)(
    '%s: the same page again is the same bytes and headers, sent without reading its rows',
    async (version) => {
      const first = await get(version, 'people');
      const again = await get(version, 'people');
      expect(first.res.statusCode).toBe(200);
      expect(again.res.statusCode).toBe(200);
      expect(again.res.body).toBe(first.res.body);
      expect(stableHeaders(again.res.headers)).toEqual(stableHeaders(first.res.headers));
      // Token and membership, then the list's total and version: nothing of the page itself.
      expect(again.statements).toBe(2);
      expect(first.statements).toBeGreaterThan(again.statements);
    },
  );

  it('keeps the two versions apart (v1 pages are PascalCase)', async () => {
    const v2 = await get('v2', 'people');
    const v1 = await get('v1', 'people');
    expect(v2.res.json<{ data: { last_name: string }[] }>().data[0]?.last_name).toBe('Citizen');
    expect(v1.res.json<{ data: { LastName: string }[] }>().data[0]?.LastName).toBe('Citizen');
  });

  it('a kept page asked for compressed is compressed once per encoding, kept, and decodes to the same JSON', async () => {
    const plain = await get('v2', 'people');
    expect(plain.res.rawPayload.length).toBeGreaterThan(1024);
    expect(plain.res.headers['content-encoding']).toBeUndefined();
    const held = t.app.getHttpAdapter().getInstance().pageCache.size;

    const gzip = await get('v2', 'people', { 'accept-encoding': 'gzip, deflate' });
    expect(gzip.statements).toBe(2);
    expect(gzip.res.headers['content-encoding']).toBe('gzip');
    expect(gzip.res.headers.vary).toBe('accept-encoding');
    expect(gzip.res.headers.etag).toBe(plain.res.headers.etag);
    expect(gunzipSync(gzip.res.rawPayload).toString('utf8')).toBe(plain.res.body);
    const withGzip = t.app.getHttpAdapter().getInstance().pageCache.size;
    expect(withGzip).toBeGreaterThan(held);

    const again = await get('v2', 'people', { 'accept-encoding': 'gzip' });
    expect(again.res.rawPayload.equals(gzip.res.rawPayload)).toBe(true);
    expect(t.app.getHttpAdapter().getInstance().pageCache.size).toBe(withGzip);

    const br = await get('v2', 'people', { 'accept-encoding': 'br, gzip' });
    expect(br.res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.res.rawPayload).toString('utf8')).toBe(plain.res.body);
    expect(t.app.getHttpAdapter().getInstance().pageCache.size).toBeGreaterThan(withGzip);
  });

  it('a compressed kept page has the headers of a compressed page built from its rows', async () => {
    // Another host: the links' base URL is part of the tag, so the first answer is built.
    const asked = { 'accept-encoding': 'gzip', host: 'crm.example' };
    const built = await get('v2', 'people', asked);
    const kept = await get('v2', 'people', asked);
    expect(kept.statements).toBeLessThan(built.statements);
    expect(kept.res.rawPayload.length).toBeGreaterThan(0);
    // A page built from its rows is streamed through the compressor (chunked); a kept one has its length.
    const framing = new Set(['content-length', 'transfer-encoding']);
    const headers = (h: Record<string, unknown>) => stableHeaders(h).filter(([name]) => !framing.has(name));
    expect(headers(kept.res.headers)).toEqual(headers(built.res.headers));
    expect(gunzipSync(kept.res.rawPayload).equals(gunzipSync(built.res.rawPayload))).toBe(true);
  });

  it('the checks before it still run: no token is 401, another enterprise is 403', async () => {
    await get('v2', 'leads');
    const anonymous = await t.app.inject({ method: 'GET', url: '/api/v2/leads' });
    expect(anonymous.statusCode).toBe(401);
    const foreign = await t.app.inject({
      method: 'GET',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', token, tenant.otherEnterpriseId),
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.body).not.toContain('Car loan');
  });

  it('a lead PUT: the next page holds the change', async () => {
    expect((await get('v2', 'leads')).res.body).toContain('Car loan');
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/leads/${ids.lead}`,
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title: 'Boat loan', person_name: 'Jane' },
    });
    expect(put.statusCode).toBe(200);
    const after = await get('v2', 'leads');
    expect(after.res.body).toContain('Boat loan');
    expect(after.res.body).not.toContain('Car loan');
  });

  it('an import of a nested row only: the next people page holds it', async () => {
    expect((await get('v2', 'people')).res.body).toContain('0400 000 000');
    await importFixture(t, {
      people: [
        {
          id: ids.person,
          enterprise_id: tenant.enterpriseId,
          first_name: 'Zoë',
          last_name: 'Citizen',
          phone_numbers: [{ id: ids.phone, type: 'mobile', number: '0499 999 999' }],
        },
      ],
    });
    const after = await get('v2', 'people');
    expect(after.res.body).toContain('0499 999 999');
    expect(after.res.body).not.toContain('0400 000 000');
  });

  it('a plain SQL update of a quote: the next applications page holds it', async () => {
    expect((await get('v2', 'applications')).res.body).toContain('Example Bank');
    await t.dataSource.query(`UPDATE quotes SET financier = 'Other Bank' WHERE id = $1`, [quote]);
    const after = await get('v2', 'applications');
    expect(after.res.body).toContain('Other Bank');
  });

  it('a TRUNCATE of nested rows or of a list’s own table is refused, and every kept page still holds', async () => {
    const people = await get('v2', 'people');
    expect(people.res.body).toContain('0499 999 999');
    for (const statement of ['TRUNCATE phone_numbers', 'TRUNCATE leads CASCADE', 'TRUNCATE enterprises CASCADE']) {
      await expect(t.dataSource.query(statement)).rejects.toThrow(/is refused: use DELETE/);
    }
    const again = await get('v2', 'people', { 'if-none-match': people.res.headers.etag as string });
    expect(again.res.statusCode).toBe(304);
    expect((await get('v2', 'people')).res.body).toContain('0499 999 999');
  });

  it('every table whose rows a record or a list shows refuses TRUNCATE', async () => {
    // A table captured by the change log without the refusal would let a TRUNCATE leave a kept
    // page (and a record's ETag) in place and the feed silent.
    const uncovered: { table_name: string }[] = await t.dataSource.query(`
      SELECT c.relname AS table_name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       WHERE NOT t.tgisinternal
       GROUP BY c.relname
      HAVING bool_or(t.tgname LIKE '%\\_changes\\_%' OR t.tgname LIKE '%\\_count\\_%')
         AND NOT bool_or((t.tgtype & 32) <> 0 AND t.tgname ~ '_refuse_truncate$')`);
    const captured: { relname: string }[] = await t.dataSource.query(
      `SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname LIKE '%\\_changes\\_%'`,
    );
    expect(captured.length).toBeGreaterThan(5);
    expect(uncovered).toEqual([]);
  });
});

describe('page cache off (PAGE_CACHE_MB=0)', () => {
  let t: TestApp;
  let token: string;
  let tenant: Tenant;

  const suite = apiSuite({
    env: { PAGE_CACHE_MB: '0' },
    records: (tenant) => ({
      people: [{ id: randomUUID(), enterprise_id: tenant.enterpriseId, last_name: 'Citizen' }],
    }),
  });
  beforeAll(() => void ({ t, tenant, token } = suite));

  it('builds every page from its rows', async () => {
    const counts: number[] = [];
    for (let i = 0; i < 2; i++) {
      const { result: res, sql } = await withStatements(t.dataSource, () =>
        t.app.inject({ method: 'GET', url: '/api/v2/people', headers: apiHeaders('v2', token, tenant.enterpriseId) }),
      );
      expect(res.statusCode).toBe(200);
      counts.push(sql.length);
    }
    expect(counts[1]).toBe(counts[0]);
    expect(counts[1]).toBeGreaterThan(2);
  });
});
