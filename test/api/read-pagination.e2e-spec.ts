import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, importFixture } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';
import { PAGED_SECTIONS, twoTenants } from '../helpers/two-tenants.js';

const APP_URL = 'https://api.example.com';
const TOTAL = 250;

/** Three records share each timestamp, so the order within a timestamp rests on the id alone. */
const createdAt = (i: number) => new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();

/**
 * Every resource listed a page at a time, from the descriptors: the shared fixture gives the
 * own enterprise 250 records of each (built as every suite's are), the other tenant's three.
 */
const { doc, own, foreign } = twoTenants({ paged: Array.from({ length: TOTAL }, (_, i) => createdAt(i)) }, 'several');
const OWN = own.enterpriseId;
const RESOURCES = PAGED_SECTIONS;
type Resource = string;

/** The list order: newest first, then id descending (PostgreSQL orders uuids as their lower-case hex text). */
const expectedOrder = (resource: Resource): string[] =>
  (doc[resource] ?? [])
    .map((r) => r as { id: string; enterprise_id: string; created_at: string })
    .filter((r) => r.enterprise_id === OWN)
    .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
    .map((r) => r.id);

const envelope = (version: 'v1' | 'v2', resource: Resource, page: number, from: number | null, to: number | null) => {
  const path = `${APP_URL}/api/${version}/${resource}`;
  return {
    links: {
      first: `${path}?page=1`,
      last: `${path}?page=3`,
      prev: page > 1 ? `${path}?page=${page - 1}` : null,
      next: page < 3 ? `${path}?page=${page + 1}` : null,
    },
    meta: { current_page: page, from, to, last_page: 3, path, per_page: 100, total: TOTAL },
  };
};

describe('the fixture this suite pages through', () => {
  it('holds 250 records of every paged resource in the own enterprise, three in the other', () => {
    expect(RESOURCES).toEqual(expect.arrayContaining(['people', 'organisations', 'applications', 'quotes', 'leads']));
    for (const resource of RESOURCES) {
      const rows = (doc[resource] ?? []) as { enterprise_id: string }[];
      const other = rows.filter((r) => r.enterprise_id === foreign.enterpriseId).length;
      expect({ resource, own: expectedOrder(resource).length, other }).toEqual({ resource, own: TOTAL, other: 3 });
    }
  });
});

describe('pagination of the read resources over 250 records', () => {
  let t: TestApp;
  let token: string;

  const suite = apiSuite({
    env: { APP_URL: `${APP_URL}/` },
    fixture: {
      doc,
      tenant: { enterpriseId: OWN, otherEnterpriseId: foreign.enterpriseId, user: own.user, outsider: foreign.user },
    },
  });
  beforeAll(() => void ({ t, token } = suite));

  const list = async (version: 'v1' | 'v2', resource: Resource, query: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/${version}/${resource}${query}`,
      headers: apiHeaders(version, token, OWN),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ data: Record<string, unknown>[]; links: unknown; meta: unknown }>();
    const idKey = version === 'v1' ? 'ID' : 'id';
    return { ids: body.data.map((r) => r[idKey]), links: body.links, meta: body.meta, keys: Object.keys(body) };
  };

  const cases = RESOURCES.flatMap((resource) => (['v1', 'v2'] as const).map((version) => [resource, version] as const));

  describe.each(cases)('%s (%s)', (resource, version) => {
    const order = expectedOrder(resource);

    it.each([
      ['page 1 (no page)', '', 1, 0, 100],
      ['page 2', '?page=2', 2, 100, 200],
      ['page 3, the last and partial', '?page=3', 3, 200, 250],
    ])('%s: exact records, links and meta', async (_name, query, page, start, end) => {
      const body = await list(version, resource, query);
      expect(body.keys).toStrictEqual(['data', 'links', 'meta']);
      expect(body.ids).toStrictEqual(order.slice(start, end));
      expect({ links: body.links, meta: body.meta }).toStrictEqual(envelope(version, resource, page, start + 1, end));
    });

    it.each([
      ['page=4', '?page=4', 4],
      ['page=9', '?page=9', 9],
      ['page=999999999', '?page=999999999', 999999999],
      ['page=1000000000, ten digits', '?page=1000000000', 1000000000],
      ['page=00012, leading zeros', '?page=00012', 12],
    ])('past the end (%s): empty data, prev is the page before, next null', async (_name, query, page) => {
      const body = await list(version, resource, query);
      expect(body.ids).toStrictEqual([]);
      expect({ links: body.links, meta: body.meta }).toStrictEqual(envelope(version, resource, page, null, null));
    });

    it('a page number past the largest exact integer is an empty page, never page 1', async () => {
      const body = await list(version, resource, `?page=${'9'.repeat(40)}`);
      expect(body.ids).toStrictEqual([]);
      expect(body.meta).toMatchObject({ current_page: Number.MAX_SAFE_INTEGER, from: null, to: null });
    });

    it.each(['?page=abc', '?page=0', '?page=-2', '?page=1.5', '?page=', '?page=1e9', '?page=%2B5'])(
      '%s means page 1',
      async (query) => {
        const body = await list(version, resource, query);
        expect(body.ids).toStrictEqual(order.slice(0, 100));
        expect({ links: body.links, meta: body.meta }).toStrictEqual(envelope(version, resource, 1, 1, 100));
      },
    );

    it('ignores per_page and drops other query parameters from the links', async () => {
      const body = await list(version, resource, '?per_page=5&page=2&sort=id&filter[x]=1');
      expect(body.ids).toStrictEqual(order.slice(100, 200));
      expect({ links: body.links, meta: body.meta }).toStrictEqual(envelope(version, resource, 2, 101, 200));
    });
  });

  it('an enterprise with no records lists an empty first page', async () => {
    const empty = randomUUID();
    await importFixture(t, {
      enterprises: [{ id: empty, name: 'Empty Finance' }],
      users: [{ id: own.user.id, name: 'Ann Broker', email: own.user.email, enterprise_ids: [OWN, empty] }],
    });
    for (const resource of RESOURCES) {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/v2/${resource}`,
        headers: apiHeaders('v2', token, empty),
      });
      const path = `${APP_URL}/api/v2/${resource}`;
      expect(res.json()).toStrictEqual({
        data: [],
        links: { first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null },
        meta: { current_page: 1, from: null, to: null, last_page: 1, path, per_page: 100, total: 0 },
      });
    }
  });
});
