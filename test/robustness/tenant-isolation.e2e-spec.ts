import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'light-my-request';
import { routeRegistryOf } from '../../src/app.factory.js';
import { apiVersionOf, type ApiVersion } from '../../src/common/http/api-version.js';
import type { RouteEntry } from '../../src/common/http/route-registry.js';
import { importFixture, loginToken } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { FIXTURE_SECTIONS, isFixtureSection, leakedValues, twoTenants } from '../helpers/two-tenants.js';

/**
 * The tenant-isolation matrix, generated from the router itself: every route the application
 * registered (both versions, and the unversioned ones), called as a member of one enterprise
 * with own, foreign, unknown and malformed record ids and enterprise headers, and without a
 * token. A route added later is in the matrix without touching this file; a new tenant
 * resource under /api/v1 or /api/v2 fails here until it is given fixtures in two-tenants.ts.
 */
const { doc, own, foreign } = twoTenants();
const t: TestApp = await createTestApp({ SIGNPROVIDER_A_SECRET: 'matrix-secret' });
const ROUTES: readonly RouteEntry[] = routeRegistryOf(t.app).list();

/** Resources that need no enterprise header, and the API's own OpenAPI documents. */
const WITHOUT_HEADER = new Set(['login', 'logout', 'register', 'enterprises', 'openapi.json']);
const PUBLIC = new Set(['login', 'register', 'openapi.json']);
const HEADER: Record<ApiVersion, string> = { v1: 'EnterpriseID', v2: 'X-Enterprise-Id' };

type IdKind = 'own' | 'foreign' | 'unknown' | 'malformed';
type EnterpriseKind = 'own' | 'foreign' | 'unknown' | 'malformed' | 'missing';
type TokenKind = 'own' | 'none';

interface Cell {
  token: TokenKind;
  enterprise: EnterpriseKind;
  id: IdKind | undefined;
}

function resourceOf(url: string): string | undefined {
  return /^\/api\/v[12]\/([^/]+)/.exec(url)?.[1];
}

const ID_KINDS: IdKind[] = ['own', 'foreign', 'unknown', 'malformed'];

/** Records of each tenant the importer does not make (webhook endpoints), inserted in beforeAll. */
const EXTRA_IDS: Record<string, Record<'own' | 'foreign', string>> = {
  'webhook-endpoints': { own: randomUUID(), foreign: randomUUID() },
  tokens: { own: randomUUID(), foreign: randomUUID() },
};
const ENTERPRISE_KINDS: EnterpriseKind[] = ['own', 'foreign', 'unknown', 'malformed', 'missing'];

function cellsFor(route: RouteEntry): Cell[] {
  const ids: (IdKind | undefined)[] = route.url.includes('/:') || route.url.endsWith('*') ? ID_KINDS : [undefined];
  const cells: Cell[] = [];
  for (const id of ids) {
    for (const enterprise of ENTERPRISE_KINDS) cells.push({ token: 'own', enterprise, id });
    cells.push({ token: 'none', enterprise: 'own', id });
  }
  return cells;
}

const MALFORMED = ["1' OR '1'='1", 'not-a-uuid', `${own.ids.leads}x`, '%00', '../users'];

function idValue(route: RouteEntry, kind: IdKind, index: number): string {
  const resource = resourceOf(route.url);
  if (kind === 'unknown') return randomUUID();
  if (kind === 'malformed') return encodeURIComponent(MALFORMED[index % MALFORMED.length] ?? 'x');
  const extra = EXTRA_IDS[resource ?? ''];
  if (extra) return extra[kind];
  if (!isFixtureSection(resource)) {
    if (route.url.startsWith('/api/v')) {
      throw new Error(`${route.method} ${route.url}: add "${resource}" records to test/helpers/two-tenants.ts`);
    }
    // An unversioned route with a parameter: any record id of either tenant.
    return (kind === 'own' ? own : foreign).allIds[0] ?? randomUUID();
  }
  return (kind === 'own' ? own : foreign).ids[resource] ?? randomUUID();
}

function enterpriseValue(kind: EnterpriseKind): string | undefined {
  switch (kind) {
    case 'own':
      return own.enterpriseId;
    case 'foreign':
      return foreign.enterpriseId;
    case 'unknown':
      return randomUUID();
    case 'malformed':
      return "' OR 1=1 --";
    case 'missing':
      return undefined;
  }
}

/** A lead body that would pass validation, so a write that got through would really write. */
function bodyFor(version: ApiVersion | undefined): Record<string, string> {
  return version === 'v1' ? { Title: 'Matrix lead', PersonName: 'Matrix' } : { title: 'Matrix lead', person: 'Matrix' };
}

let token = '';
const sizes: number[] = [];

beforeAll(async () => {
  await importFixture(t, doc);
  for (const [label, tenant] of [
    ['own', own],
    ['foreign', foreign],
  ] as const) {
    await t.dataSource.query(
      `INSERT INTO webhook_endpoints (id, enterprise_id, url, types, secret_encrypted, cursor_xid)
       VALUES ($1, $2, $3, '{}', $4, 0)`,
      [
        EXTRA_IDS['webhook-endpoints']?.[label],
        tenant.enterpriseId,
        `https://hooks.example.com/${tenant.markers[0] ?? label}`,
        t.cipher.encrypt('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'),
      ],
    );
  }
  for (const [label, tenant] of [
    ['own', own],
    ['foreign', foreign],
  ] as const) {
    await t.dataSource.query(
      `INSERT INTO access_tokens (id, user_id, token_sha256, kind, name) VALUES ($1, $2, $3, 'integration', $4)`,
      [EXTRA_IDS.tokens?.[label], tenant.user.id, '0'.repeat(64), `matrix ${label}`],
    );
  }
  token = await loginToken(t.app, own.user.email, own.user.password);
});

afterAll(async () => {
  await t.close();
});

/** Every tenant table a descriptor reads (users are reached through memberships). */
const TENANT_TABLES = TENANT_RESOURCES.flatMap((resource) => (resource.rows.table ? [resource.rows.table] : []));

async function foreignSnapshot(): Promise<string> {
  const rows: unknown[] = [];
  for (const table of [...TENANT_TABLES, 'memberships']) {
    rows.push(
      await t.dataSource.query(`SELECT * FROM ${table} WHERE enterprise_id = $1 ORDER BY 1`, [foreign.enterpriseId]),
    );
  }
  rows.push(await t.dataSource.query(`SELECT * FROM signing_documents ORDER BY id`));
  rows.push(
    await t.dataSource.query(`SELECT * FROM webhook_endpoints WHERE enterprise_id = $1 ORDER BY id`, [
      foreign.enterpriseId,
    ]),
  );
  rows.push(await t.dataSource.query(`SELECT * FROM users WHERE id = $1`, [foreign.user.id]));
  return JSON.stringify(rows);
}

describe('tenant isolation matrix (every registered route)', () => {
  let before = '';
  beforeAll(async () => {
    before = await foreignSnapshot();
  });

  it('covers both versions and every resource', () => {
    const versioned = ROUTES.filter((r) => apiVersionOf(r.url) !== undefined);
    expect(versioned.filter((r) => r.url.startsWith('/api/v1/')).length).toBeGreaterThan(30);
    expect(versioned.filter((r) => r.url.startsWith('/api/v2/')).length).toBeGreaterThan(30);
    for (const resource of FIXTURE_SECTIONS) {
      expect(ROUTES.some((r) => r.url === `/api/v2/${resource}/:id` && r.method === 'GET')).toBe(true);
    }
  });

  it.each(ROUTES.map((route) => [route.method, route.url, route] as const))('%s %s', async (_m, _u, route) => {
    const version = apiVersionOf(route.url);
    const resource = resourceOf(route.url);
    const failures: string[] = [];
    const cells = cellsFor(route);
    sizes.push(cells.length);
    for (const [index, cell] of cells.entries()) {
      const id = cell.id === undefined ? undefined : idValue(route, cell.id, index);
      const url = route.url.replace(/:[A-Za-z]+|\*$/g, id ?? '');
      const headers: Record<string, string> = { accept: 'application/json' };
      // Logout revokes the token it is called with: each call gets a token of its own.
      const bearer = resource === 'logout' ? await loginToken(t.app, own.user.email, own.user.password) : token;
      if (cell.token === 'own') headers.authorization = `Bearer ${bearer}`;
      const enterprise = enterpriseValue(cell.enterprise);
      if (enterprise !== undefined) headers[HEADER[version ?? 'v2']] = enterprise;
      const options: InjectOptions = { method: route.method, url, headers };
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) options.payload = bodyFor(version);
      const res = await t.app.inject(options);
      const where = `${route.method} ${url} token=${cell.token} enterprise=${cell.enterprise} id=${cell.id ?? '-'}`;
      const fail = (why: string) => failures.push(`${where}: ${why} (${res.statusCode} ${res.body.slice(0, 200)})`);

      if (res.statusCode >= 500) fail('5xx');
      const leaked = leakedValues(res.body + JSON.stringify(res.headers), foreign, url + JSON.stringify(headers));
      if (leaked.length > 0) fail(`foreign values in the answer: ${leaked.join(', ')}`);
      if (version === undefined || resource === undefined) continue;

      if (cell.token === 'none') {
        if (!PUBLIC.has(resource) && res.statusCode !== 401) fail('expected 401 without a token');
        continue;
      }
      if (!WITHOUT_HEADER.has(resource) && cell.enterprise !== 'own') {
        if (res.statusCode !== 403) fail('expected 403 for that enterprise header');
        continue;
      }
      if (cell.enterprise !== 'own' && WITHOUT_HEADER.has(resource)) continue;
      if (res.statusCode >= 200 && res.statusCode < 300 && cell.id !== undefined && cell.id !== 'own') {
        fail('a 2xx for an id that is not our own');
      }
      if (cell.id === 'foreign' && res.statusCode !== 403) fail('expected 403 for a foreign record');
      if ((cell.id === 'unknown' || cell.id === 'malformed') && route.method === 'GET' && res.statusCode !== 404) {
        fail('expected 404 for an id that names no record');
      }
      if ((cell.id === 'unknown' || cell.id === 'malformed') && ![403, 404].includes(res.statusCode)) {
        fail('expected 403 (disabled write) or 404');
      }
      if (cell.id === 'own' && route.method === 'GET' && res.statusCode !== 200)
        fail('expected 200 for our own record');
      if (cell.id === undefined && route.method === 'GET' && !PUBLIC.has(resource) && res.statusCode !== 200) {
        fail('expected 200 for our own list');
      }
    }
    expect(failures).toEqual([]);
  });

  it('left every record of the other enterprise exactly as it was', async () => {
    expect(await foreignSnapshot()).toBe(before);
    const total = sizes.reduce((sum, n) => sum + n, 0);
    expect(sizes).toHaveLength(ROUTES.length);
    process.stdout.write(`\nTenant-isolation matrix: ${ROUTES.length} routes, ${total} requests.\n`);
  });
});
