import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'light-my-request';
import { routeRegistryOf } from '../../src/app.factory.js';
import { apiVersionOf } from '../../src/common/http/api-version.js';
import type { RouteEntry } from '../../src/common/http/route-registry.js';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { WebhookResolver } from '../../src/webhook-endpoints/webhook-resolver.js';
import { withStatements } from '../helpers/statements.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { twoTenants } from '../helpers/two-tenants.js';

/**
 * A distributed PostgreSQL sends a statement to one node when the statement names one value of
 * the distribution column for every tenant table it reads or writes. This runs every route that
 * takes the enterprise header (both versions, every method the routes register, so a new route
 * is covered without edits) and holds each statement it sends to that rule:
 * - every tenant table it names (any table with an `enterprise_id` column, from the catalog) is
 *   tied to an enterprise in the statement itself: `<alias>.enterprise_id = ...` (a parameter,
 *   or another tenant table's `enterprise_id`), `enterprise_id = ...` for an unaliased table, or
 *   `enterprise_id` among the columns an INSERT writes;
 * - the caller's enterprise is one of its parameters, and no other enterprise is.
 * Statements that name no tenant table (transaction control, the feed's horizon, which takes the
 * enterprise as its argument, a token's own row) are not tenant queries; the token look-up reads
 * the caller's membership, so it is held to the rule too.
 */
const { doc, own, foreign } = twoTenants('one');

/** Transaction control and the health probe: no table, no enterprise. */
const NOT_TENANT_STATEMENT = /^\s*(START TRANSACTION|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET\b|SELECT 1\s*$)/i;

const SQL_WORDS = new Set([
  'where',
  'join',
  'on',
  'left',
  'right',
  'inner',
  'cross',
  'order',
  'group',
  'limit',
  'offset',
  'set',
  'using',
  'returning',
  'values',
  'select',
  'union',
  'for',
  'natural',
  'full',
  'lateral',
  'having',
  'window',
  'fetch',
  'default',
  'as',
  'with',
]);

interface TableUse {
  readonly table: string;
  readonly alias: string | undefined;
}

/** The tables a statement names after FROM, JOIN, UPDATE or INSERT INTO, with their aliases. */
function tablesNamed(sql: string, tenantTables: ReadonlySet<string>): TableUse[] {
  const uses: TableUse[] = [];
  const pattern = /\b(?:FROM|JOIN|UPDATE|INTO)\s+"?([a-z_][a-z0-9_]*)"?(?:\s+(?:AS\s+)?"?([a-z_][a-z0-9_]*)"?)?/gi;
  for (const match of sql.matchAll(pattern)) {
    const table = (match[1] ?? '').toLowerCase();
    if (!tenantTables.has(table)) continue;
    const word = match[2]?.toLowerCase();
    uses.push({ table, alias: word === undefined || SQL_WORDS.has(word) ? undefined : word });
  }
  return uses;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Why a table use is not tied to an enterprise, or undefined when it is. */
function untied(sql: string, use: TableUse): string | undefined {
  const column =
    use.alias === undefined ? '(?<![\\w."])"?enterprise_id"?' : `\\b"?${escaped(use.alias)}"?\\."?enterprise_id"?`;
  const compared = new RegExp(`${column}\\s*=|=\\s*${column}(?![\\w"])`, 'i');
  if (compared.test(sql)) return undefined;
  const insert = new RegExp(`\\bINTO\\s+"?${use.table}"?\\s*(?:AS\\s+\\w+\\s*)?\\(([^)]*)\\)`, 'i').exec(sql);
  if (insert && /(^|[\s,"])enterprise_id("|\s|,|$)/.test(insert[1] ?? '')) return undefined;
  return `${use.table}${use.alias ? ` (${use.alias})` : ''} is read or written without its enterprise_id`;
}

describe('every statement of a tenant request names one enterprise', () => {
  let t: TestApp;
  let token: string;
  let tenantTables: Set<string>;
  const enterprises = new Set([own.enterpriseId, foreign.enterpriseId]);

  beforeAll(async () => {
    t = await createTestApp();
    // The endpoints' host answers with a public address, as a CRM's would.
    t.app.get(WebhookResolver).use(() => Promise.resolve([{ address: '93.184.216.34', family: 4 }]));
    await importFixture(t, doc);
    token = await loginToken(t.app, own.user.email, own.user.password);
    const rows = await selectRows<{ table_name: string }>(
      t.dataSource,
      `SELECT DISTINCT table_name FROM information_schema.columns
        WHERE table_schema = 'public' AND column_name = 'enterprise_id'`,
    );
    tenantTables = new Set(rows.map((row) => row.table_name));
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The faults of one statement sent for the own enterprise, none when it keeps to it. */
  function faultsOf(statement: string, parameters: readonly unknown[]): string[] {
    if (NOT_TENANT_STATEMENT.test(statement)) return [];
    const uses = tablesNamed(statement, tenantTables);
    if (uses.length === 0) return [];
    const faults = uses.map((use) => untied(statement, use)).filter((fault): fault is string => fault !== undefined);
    const named = parameters.filter((value) => typeof value === 'string' && enterprises.has(value));
    if (!named.includes(own.enterpriseId)) faults.push("the caller's enterprise is not among its parameters");
    if (named.some((value) => value !== own.enterpriseId)) faults.push('another enterprise is among its parameters');
    return faults;
  }

  const resourceOf = (url: string) => /^\/api\/v[12]\/([^/]+)/.exec(url)?.[1] ?? '';

  /** A request of the route as the own tenant's user would send it, with real ids and bodies. */
  function requestOf(route: RouteEntry, ids: Record<string, string>): InjectOptions {
    const version = apiVersionOf(route.url) ?? 'v2';
    const resource = resourceOf(route.url);
    const id = ids[resource] ?? own.enterpriseId;
    const url = route.url.replace(/:[a-zA-Z]+/g, id).replace(/\*$/, id);
    const headers = apiHeaders(version, token, own.enterpriseId);
    if (route.method === 'GET' || route.method === 'DELETE') return { method: route.method, url, headers };
    const body: Record<string, unknown> = route.url.endsWith('/replay')
      ? { from_beginning: true }
      : resource === 'webhook-endpoints'
        ? { url: 'https://hooks.example.test/one', types: ['lead'], enabled: false }
        : version === 'v1'
          ? { Title: 'One enterprise', PersonName: 'Pat Statement' }
          : { title: 'One enterprise', person_name: 'Pat Statement' };
    return {
      method: route.method,
      url,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: body,
    };
  }

  it('holds for every route that takes the enterprise header', async () => {
    const ids: Record<string, string> = { ...(own.ids as Record<string, string>) };
    // An endpoint of the tenant's own, so its routes read a real row.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/webhook-endpoints',
      headers: { ...apiHeaders('v2', token, own.enterpriseId), 'content-type': 'application/json' },
      payload: { url: 'https://hooks.example.test/statements', types: ['lead'], enabled: false },
    });
    expect(created.statusCode).toBe(201);
    ids['webhook-endpoints'] = created.json<{ data: { id: string } }>().data.id;

    const routes = routeRegistryOf(t.app)
      .list()
      .filter((route) => /^\/api\/v[12]\//.test(route.url))
      // Routes without the enterprise header: the user's enterprises, logging in and out, registering.
      .filter((route) => !['enterprises', 'login', 'logout', 'register'].includes(resourceOf(route.url)))
      // Deletes last, so every other route still finds its record.
      .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
    const faults: string[] = [];
    let tenantStatements = 0;
    for (const route of routes) {
      const { result, calls } = await withStatements(t.dataSource, () => t.app.inject(requestOf(route, ids)));
      if (result.statusCode >= 500) faults.push(`${route.method} ${route.url}: ${result.statusCode}`);
      // Reads, lead writes and endpoint management succeed, so their whole path ran (leads are never deleted).
      const answered =
        route.method === 'GET' ||
        resourceOf(route.url) === 'webhook-endpoints' ||
        (resourceOf(route.url) === 'leads' && route.method !== 'DELETE');
      if (answered && result.statusCode >= 400) faults.push(`${route.method} ${route.url}: ${result.statusCode}`);
      for (const { sql, parameters } of calls) {
        if (tablesNamed(sql, tenantTables).length > 0) tenantStatements += 1;
        for (const fault of faultsOf(sql, parameters))
          faults.push(`${route.method} ${route.url}: ${fault}: ${sql.replace(/\s+/g, ' ').slice(0, 240)}`);
      }
    }
    expect(faults).toEqual([]);
    // Every kind of route ran and read tenant rows (a route answering 404 unread would not).
    expect(tenantStatements).toBeGreaterThan(100);
  });

  it('finds a statement that reads a tenant table by id alone, or names another enterprise', () => {
    expect(faultsOf('SELECT p.id FROM people p WHERE p.id = $1', [own.ids.people])).toEqual([
      'people (p) is read or written without its enterprise_id',
      "the caller's enterprise is not among its parameters",
    ]);
    expect(
      faultsOf('SELECT e.id FROM emails e JOIN people p ON p.id = e.person_id WHERE p.enterprise_id = $1', [
        own.enterpriseId,
      ]),
    ).toEqual(['emails (e) is read or written without its enterprise_id']);
    expect(faultsOf('SELECT id FROM leads WHERE enterprise_id = $1', [foreign.enterpriseId])).toEqual([
      "the caller's enterprise is not among its parameters",
      'another enterprise is among its parameters',
    ]);
    expect(
      faultsOf(
        'SELECT e.id FROM emails e JOIN people p ON p.id = e.person_id AND p.enterprise_id = e.enterprise_id WHERE p.enterprise_id = $1',
        [own.enterpriseId],
      ),
    ).toEqual([]);
    expect(
      faultsOf('INSERT INTO leads (id, enterprise_id, title) VALUES ($1, $2, $3)', ['x', own.enterpriseId, 't']),
    ).toEqual([]);
  });
});
