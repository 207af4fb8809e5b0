import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { withStatements } from '../helpers/statements.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { PAGED_SECTIONS, twoTenants } from '../helpers/two-tenants.js';

/** The token and membership check every request makes; every other statement reads the resource. */
const AUTH_TABLES = /\b(access_tokens|memberships)\b/;

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

/**
 * The shared fixture, with 100 records of every paged resource in the big enterprise (the own
 * tenant's) and one in the small one (the foreign tenant's): every resource of the descriptors
 * is counted, a new one without a line here.
 */
const { doc, own, foreign } = twoTenants({ paged: Array.from({ length: 100 }, (_, i) => at(i)) }, 'one');
const BIG = own.enterpriseId;
const SMALL = foreign.enterpriseId;

/**
 * The statements a list page (the same in both versions unless told) and a retrieve cost on the
 * resource tables, pinned after tuning: a change to one of these reads shows here. Every paged
 * resource, pinned or not, is held to the same statements for a page of 100 as for a page of 1.
 */
const PINNED: Record<string, { list: number; v1List?: number; retrieve: number }> = {
  people: { list: 2, retrieve: 2 },
  organisations: { list: 5, retrieve: 4 },
  applications: { list: 2, retrieve: 1 },
  quotes: { list: 2, v1List: 3, retrieve: 2 },
};

const LIST_CASES = PAGED_SECTIONS.flatMap((path) => (['v2', 'v1'] as const).map((version) => [version, path] as const));

describe('a list page costs a fixed number of queries (no N+1)', () => {
  let t: TestApp;
  let token: string;

  let foreignToken: string;
  const tokenOf = (enterpriseId: string) => (enterpriseId === SMALL ? foreignToken : token);

  beforeAll(async () => {
    t = await createTestApp();
    await importFixture(t, doc);
    token = await loginToken(t.app, own.user.email, own.user.password);
    foreignToken = await loginToken(t.app, foreign.user.email, foreign.user.password);
  });
  afterAll(async () => {
    await t.close();
  });

  /** The SQL statements one request sends, seen through TypeORM's query logging. */
  async function queriesOf(version: 'v1' | 'v2', url: string, enterpriseId: string) {
    const { result: res, sql } = await withStatements(t.dataSource, () =>
      t.app.inject({
        method: 'GET',
        url: `/api/${version}${url}`,
        headers: apiHeaders(version, tokenOf(enterpriseId), enterpriseId),
      }),
    );
    expect(res.statusCode).toBe(200);
    const records = res.json<{ data: unknown[] | object }>().data;
    return { records: Array.isArray(records) ? records.length : 1, sql };
  }

  /** Statements touching the resource tables; the rest are the token and membership checks. */
  const onResources = (sql: readonly string[]) => sql.filter((statement) => !AUTH_TABLES.test(statement));

  // A list's ETag version comes with its total (one row of tenant_row_counts), before the page.
  it.each(LIST_CASES)('%s /%s: the same queries for a page of 100 as for a page of 1', async (version, path) => {
    const full = await queriesOf(version, `/${path}`, BIG);
    const single = await queriesOf(version, `/${path}`, SMALL);
    expect(full.records).toBe(100);
    expect(single.records).toBe(1);
    expect(full.sql).toHaveLength(single.sql.length);
    const pinned = PINNED[path];
    if (pinned)
      expect(onResources(full.sql)).toHaveLength(version === 'v1' ? (pinned.v1List ?? pinned.list) : pinned.list);
  });

  /** The own tenant's n-th record of a resource (the first has the nested rows). */
  const recordId = (path: string, n: number) =>
    ((doc[path] ?? []) as { id: string; enterprise_id: string }[]).filter((r) => r.enterprise_id === BIG)[n]?.id ?? '';

  // The first read presents the record; a read of the same version after it (v2 after v1 here)
  // finds it kept (RECORD_CACHE_MB) and reads its row and version only.
  it.each(PAGED_SECTIONS)('a retrieve of /%s costs a fixed number of queries, one once presented', async (path) => {
    for (const version of ['v1', 'v2'] as const) {
      const { sql } = await queriesOf(version, `/${path}/${recordId(path, 0)}`, BIG);
      const plain = await queriesOf(version, `/${path}/${recordId(path, 1)}`, BIG);
      expect(sql).toHaveLength(plain.sql.length);
      const pinned = PINNED[path];
      if (pinned) expect(onResources(sql)).toHaveLength(version === 'v1' ? pinned.retrieve : 1);
    }
  });

  it('reads an ETag version in the statement the read makes anyway: a lead retrieve is two statements', async () => {
    for (const version of ['v1', 'v2'] as const) {
      const { sql } = await queriesOf(version, `/leads/${own.ids.leads}`, BIG);
      expect(sql).toHaveLength(2);
      expect(sql[1]).toMatch(/\bchange_log\b/);
    }
    const list = await queriesOf('v2', '/leads', BIG);
    expect(list.sql.filter((statement) => /\btenant_row_counts\b/.test(statement))).toHaveLength(1);
  });

  it("answers a 304 before reading a page's rows or a record's nested rows", async () => {
    const headers = apiHeaders('v2', token, BIG);
    for (const url of ['/api/v2/people', `/api/v2/people/${own.ids.people}`]) {
      const first = await t.app.inject({ method: 'GET', url, headers });
      const tag = first.headers.etag;
      expect(typeof tag).toBe('string');
      const { result: again, sql } = await withStatements(t.dataSource, () =>
        t.app.inject({ method: 'GET', url, headers: { ...headers, 'if-none-match': String(tag) } }),
      );
      expect(again.statusCode).toBe(304);
      // The token and membership, then the statement that carries the version; nothing after it.
      expect(sql).toHaveLength(2);
      expect(sql.some((statement) => /\b(phone_numbers|emails|addresses|financials)\b/.test(statement))).toBe(false);
    }
  });

  it('resolves the token and the enterprise membership in one statement', async () => {
    for (const version of ['v1', 'v2'] as const) {
      const { sql } = await queriesOf(version, `/people/${own.ids.people}`, BIG);
      const auth = sql.filter((statement) => /\b(access_tokens|memberships)\b/.test(statement));
      expect(auth).toHaveLength(1);
      expect(auth[0]).toMatch(/\baccess_tokens\b/);
      expect(auth[0]).toMatch(/\bmemberships\b/);
    }
  });

  it('asks again when the header is not a member enterprise: still one answer, a 403', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/people',
      headers: apiHeaders('v2', token, randomUUID()),
    });
    expect(res.statusCode).toBe(403);
  });
});
