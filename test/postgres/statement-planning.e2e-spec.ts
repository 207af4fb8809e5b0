import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routeRegistryOf } from '../../src/app.factory.js';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { twoTenants } from '../helpers/two-tenants.js';

/**
 * Hot routes keep their plans: each statement of a retrieve, a list page and a feed page is
 * planned a bounded number of times, not at every execution. PostgreSQL plans a prepared
 * statement afresh for its first five executions (custom plans), then keeps one generic plan
 * unless it looks dearer than those; a statement that stays on custom plans is planned at
 * every call (a person's retrieve spent 3 ms planning to run in 0.2). The server's own counters
 * (`pg_prepared_statements.custom_plans` and `generic_plans`, of the one connection the
 * application is given here) say which: after `CALLS` executions, at most five custom plans.
 *
 * On a PostgreSQL server only: the embedded database's statements are not prepared by name.
 *
 * The routes come from the router: every `GET /api/v2/X/:id` (a retrieve) and its list, so a new
 * resource is covered without an edit here.
 */
const CALLS = 12;
/** An enterprise's settings rather than records (read by its admins now and then, not hot). */
const NOT_RECORDS = new Set(['/api/v2/webhook-endpoints']);
const CUSTOM_PLANS_BOUND = 5;

const { doc, own } = twoTenants('several');

interface PlanCounts {
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

describe('statements of the hot routes keep a generic plan', () => {
  let t: TestApp;
  let headers: Record<string, string>;

  beforeAll(async () => {
    t = await createTestApp({ DATABASE_POOL_MAX: '1', RATE_LIMIT_PER_MINUTE: '1000000' });
    await importFixture(t, doc);
    headers = apiHeaders('v2', await loginToken(t.app, own.user.email, own.user.password), own.enterpriseId);
  });
  afterAll(async () => {
    await t.close();
  });

  /** The v2 collections that have a retrieve, from the router. */
  function retrievable(): string[] {
    const gets = new Set(
      routeRegistryOf(t.app)
        .list()
        .filter((route) => route.method === 'GET')
        .map((route) => route.url),
    );
    return [...gets]
      .flatMap((url) => {
        const match = /^(\/api\/v2\/[^/:]+)\/:[A-Za-z]+$/.exec(url);
        return match?.[1] && gets.has(match[1]) && !NOT_RECORDS.has(match[1]) ? [match[1]] : [];
      })
      .sort();
  }

  /** The application's own prepared statements on its one connection, with their plan counts. */
  async function planCounts(): Promise<PlanCounts[]> {
    const rows = await t.dataSource.query<{ statement: string; generic_plans: string; custom_plans: string }[]>(
      `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE name LIKE 'fi\\_%'`,
    );
    return rows.map((row) => ({
      statement: row.statement,
      generic_plans: Number(row.generic_plans),
      custom_plans: Number(row.custom_plans),
    }));
  }

  async function callRepeatedly(url: string): Promise<void> {
    for (let i = 0; i < CALLS; i++) {
      const res = await t.app.inject({ method: 'GET', url, headers });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    }
  }

  it('covers every resource the router serves, the enterprise discovery and people included', () => {
    const collections = retrievable();
    expect(collections).toEqual(expect.arrayContaining(['/api/v2/people', '/api/v2/organisations', '/api/v2/leads']));
    expect(collections.length).toBeGreaterThanOrEqual(7);
  });

  it(`plans no statement of a retrieve, a list page or a feed page more than ${CUSTOM_PLANS_BOUND} times in ${CALLS} calls`, async () => {
    for (const collection of retrievable()) {
      const list = await t.app.inject({ method: 'GET', url: collection, headers });
      expect({ collection, status: list.statusCode }).toEqual({ collection, status: 200 });
      const [first] = list.json<{ data: { id: string }[] }>().data;
      expect({ collection, has: first !== undefined }).toEqual({ collection, has: true });
      await callRepeatedly(`${collection}/${first?.id ?? ''}`);
      await callRepeatedly(collection);
    }
    await callRepeatedly('/api/v2/changes?limit=500');

    const counts = await planCounts();
    const executedOften = counts.filter((row) => row.generic_plans + row.custom_plans >= CALLS);
    expect(executedOften.length).toBeGreaterThan(10);
    const replanned = executedOften
      .filter((row) => row.custom_plans > CUSTOM_PLANS_BOUND)
      .map((row) => ({
        statement: row.statement.slice(0, 160),
        custom_plans: row.custom_plans,
        generic_plans: row.generic_plans,
      }));
    expect(replanned).toEqual([]);
  });
});
