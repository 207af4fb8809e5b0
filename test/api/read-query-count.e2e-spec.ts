import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, importFixture, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { withStatements } from '../helpers/statements.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

const { doc, tenant } = tenantDocument();
const BIG = tenant.enterpriseId;
const SMALL = randomUUID();

const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();

/** Many nested rows per record, so a query per record would show at once. */
function person(enterpriseId: string, i: number) {
  return {
    id: randomUUID(),
    enterprise_id: enterpriseId,
    first_name: `First ${i}`,
    last_name: `Last ${i}`,
    created_at: at(i),
    phone_numbers: [1, 2, 3].map((n) => ({ id: randomUUID(), type: 'mobile', number: `0400 000 00${n}` })),
    emails: [1, 2].map((n) => ({ id: randomUUID(), address: `p${i}-${n}@example.com` })),
    addresses: [1, 2, 3].map((n) => ({ id: randomUUID(), type: 'Residential', line1: `${n} Main St` })),
    financials: ['5200.00', '-10.00', '0', '99.99'].map((amount) => ({
      id: randomUUID(),
      type: 'income',
      amount,
      category: 'salary and wages',
    })),
  };
}

function organisation(enterpriseId: string, i: number) {
  return {
    id: randomUUID(),
    enterprise_id: enterpriseId,
    legal_name: `Org ${i}`,
    created_at: at(i),
    phone_numbers: [1, 2].map((n) => ({ id: randomUUID(), type: 'office', number: `02 9000 000${n}` })),
    emails: [1, 2].map((n) => ({ id: randomUUID(), address: `o${i}-${n}@example.com` })),
    addresses: [1, 2].map((n) => ({ id: randomUUID(), line1: `${n} George St` })),
  };
}

function applicationWithQuotes(enterpriseId: string, i: number) {
  const id = randomUUID();
  const quotes = [true, true, false].map((active, n) => ({
    id: randomUUID(),
    enterprise_id: enterpriseId,
    application_id: id,
    is_active: active,
    calculation: { asset_type: 'Motor Vehicle', financier: `Bank ${n}`, total_finance_amount: '1000.00' },
    created_at: at(i * 3 + n),
  }));
  return { application: { id, enterprise_id: enterpriseId, created_at: at(i) }, quotes };
}

const big = Array.from({ length: 100 }, (_, i) => applicationWithQuotes(BIG, i));
const small = [applicationWithQuotes(SMALL, 0)];
const fixture = {
  ...doc,
  enterprises: [...(doc.enterprises ?? []), { id: SMALL, name: 'Small Finance' }],
  users: (doc.users ?? []).map((u) => (u.id === tenant.user.id ? { ...u, enterprise_ids: [BIG, SMALL] } : u)),
  people: [...Array.from({ length: 100 }, (_, i) => person(BIG, i)), person(SMALL, 0)],
  organisations: [...Array.from({ length: 100 }, (_, i) => organisation(BIG, i)), organisation(SMALL, 0)],
  applications: [...big, ...small].map((a) => a.application),
  // Quotes: 300 in the big enterprise (100 a page), 3 in the small one.
  quotes: [...big, ...small].flatMap((a) => a.quotes),
  leads: [{ id: randomUUID(), enterprise_id: BIG, title: 'Counted lead' }],
};

/** A list page of 100 against one of 1, and the statements on the resource tables either costs. */
const LIST_CASES = [
  ['v2', '/people', 6],
  ['v1', '/people', 6],
  ['v2', '/organisations', 5],
  ['v1', '/organisations', 5],
  ['v2', '/applications', 2],
  ['v1', '/applications', 2],
  ['v2', '/quotes', 2],
  ['v1', '/quotes', 3],
] as const;

const RETRIEVE_CASES = [
  ['/people', () => fixture.people[0]?.id, 5],
  ['/organisations', () => fixture.organisations[0]?.id, 4],
  ['/applications', () => fixture.applications[0]?.id, 1],
  ['/quotes', () => fixture.quotes[0]?.id, 2],
] as const;

/** Resources checked statement by statement by a test of their own below, rather than by the cases. */
const CHECKED_BY_OWN_TEST = ['leads'];

describe('the resources this suite counts the queries of', () => {
  it('are every paged resource of the descriptors', () => {
    const listed = new Set<string>([...LIST_CASES.map(([, url]) => url.slice(1)), ...CHECKED_BY_OWN_TEST]);
    const retrieved = new Set<string>([...RETRIEVE_CASES.map(([url]) => url.slice(1)), ...CHECKED_BY_OWN_TEST]);
    const paged = TENANT_RESOURCES.filter((resource) => resource.rows.paged).map((resource) => resource.path);
    expect([
      ...paged
        .filter((path) => !listed.has(path))
        .map(
          (path) =>
            `${path}: add v1 and v2 list cases to LIST_CASES in test/api/read-query-count.e2e-spec.ts, ` +
            `with 100 records in the big enterprise and 1 in the small one in its fixture`,
        ),
      ...paged
        .filter((path) => !retrieved.has(path))
        .map((path) => `${path}: add a retrieve case to RETRIEVE_CASES in test/api/read-query-count.e2e-spec.ts`),
    ]).toEqual([]);
  });
});

describe('a list page costs a fixed number of queries (no N+1)', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    await importFixture(t, fixture);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
  });
  afterAll(async () => {
    await t.close();
  });

  /** The SQL statements one request sends, seen through TypeORM's query logging. */
  async function queriesOf(version: 'v1' | 'v2', url: string, enterpriseId: string) {
    const { result: res, sql } = await withStatements(t.dataSource, () =>
      t.app.inject({ method: 'GET', url: `/api/${version}${url}`, headers: apiHeaders(version, token, enterpriseId) }),
    );
    expect(res.statusCode).toBe(200);
    const records = res.json<{ data: unknown[] | object }>().data;
    return { records: Array.isArray(records) ? records.length : 1, sql };
  }

  /** Statements touching the resource tables; the rest are the token and membership checks. */
  const RESOURCE_TABLES =
    /\b(people|organisations|applications|quotes|leads|phone_numbers|emails|addresses|financials|tenant_row_counts|change_log)\b/;

  // A list's ETag version comes with its total (one row of tenant_row_counts), before the page.
  it.each(LIST_CASES)(
    '%s %s: the same queries for a page of 100 as for a page of 1',
    async (version, url, expected) => {
      const full = await queriesOf(version, url, BIG);
      const single = await queriesOf(version, url, SMALL);
      expect(full.records).toBe(100);
      expect(single.records).toBe(url === '/quotes' ? 3 : 1);
      expect(full.sql.length).toBe(single.sql.length);
      expect(full.sql.filter((sql) => RESOURCE_TABLES.test(sql))).toHaveLength(expected);
      expect(single.sql.filter((sql) => RESOURCE_TABLES.test(sql))).toHaveLength(expected);
    },
  );

  it.each(RETRIEVE_CASES)('a retrieve of %s costs a fixed number of queries', async (url, id, expected) => {
    for (const version of ['v1', 'v2'] as const) {
      const { sql } = await queriesOf(version, `${url}/${id() ?? ''}`, BIG);
      expect(sql.filter((statement) => RESOURCE_TABLES.test(statement))).toHaveLength(expected);
    }
  });

  it('reads an ETag version in the statement the read makes anyway: a lead retrieve is two statements', async () => {
    for (const version of ['v1', 'v2'] as const) {
      const { sql } = await queriesOf(version, `/leads/${fixture.leads[0]?.id ?? ''}`, BIG);
      expect(sql).toHaveLength(2);
      expect(sql[1]).toMatch(/\bchange_log\b/);
    }
    const list = await queriesOf('v2', '/leads', BIG);
    expect(list.sql.filter((statement) => /\btenant_row_counts\b/.test(statement))).toHaveLength(1);
  });

  it("answers a 304 before reading a page's rows or a record's nested rows", async () => {
    const headers = apiHeaders('v2', token, BIG);
    for (const url of ['/api/v2/people', `/api/v2/people/${fixture.people[0]?.id ?? ''}`]) {
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
      const { sql } = await queriesOf(version, `/people/${fixture.people[0]?.id ?? ''}`, BIG);
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
