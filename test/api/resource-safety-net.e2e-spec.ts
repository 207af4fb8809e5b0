import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { routeRegistryOf } from '../../src/app.factory.js';
import type { ApiVersion } from '../../src/common/http/api-version.js';
import { selectRows } from '../../src/database/sql.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { ALWAYS_FORBIDDEN } from '../../src/openapi/api-responses.decorator.js';
import type { JsonObject, OpenApiDocument } from '../../src/openapi/openapi-documents.js';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { completeDocuments, servedDocuments } from '../helpers/openapi-contract.js';
import { foreignKeys, primaryKey, tableColumns } from '../helpers/schema-facts.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { disagreeWithNewestFirst, SORTABLE_TYPE, twoTenants } from '../helpers/two-tenants.js';

/**
 * The business half of the shared safety net, for every resource the router serves rather than
 * a hand-kept list: each `GET /api/vN/X` that has a `GET /api/vN/X/:id` is a resource, and the
 * table of the same name holds its rows. For each: writes answer 403 unless the resource
 * documents a real write; the list of an enterprise with records has them all, newest
 * first, and `meta.total` counts the table's rows. A new resource turns this file red
 * until test/helpers/two-tenants.ts gives it records.
 */
const { doc, own } = twoTenants('several');
const TABLES = TENANT_RESOURCES.flatMap((resource) => (resource.rows.table === undefined ? [] : [resource.rows.table]));
const t: TestApp = await createTestApp();
const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const FORBIDDEN = { message: 'Forbidden.' };

interface Resource {
  readonly version: ApiVersion;
  readonly name: string;
  /** `/api/v2/people` */
  readonly collection: string;
}

/**
 * Collections that are an enterprise's settings rather than records of the contract, v2 only,
 * with their own suites: webhook endpoints (test/api/webhook-endpoints.e2e-spec.ts).
 */
const NOT_RECORDS = new Set(['webhook-endpoints']);

function discoverResources(): Resource[] {
  const gets = new Set(
    routeRegistryOf(t.app)
      .list()
      .filter((r) => r.method === 'GET')
      .map((r) => r.url),
  );
  const found: Resource[] = [];
  for (const url of gets) {
    const match = /^\/api\/(v[12])\/([^/:]+)$/.exec(url);
    if (!match) continue;
    const [, version, name] = match as unknown as [string, ApiVersion, string];
    if (NOT_RECORDS.has(name)) continue;
    if ([...gets].some((other) => new RegExp(`^${url}/:[A-Za-z]+$`).test(other))) {
      found.push({ version, name, collection: url });
    }
  }
  return found.sort((a, b) => `${a.name} ${a.version}`.localeCompare(`${b.name} ${b.version}`));
}

const RESOURCES = discoverResources();
const label = (r: Resource) => `${r.version} ${r.name}`;

let token = '';
let documents: Record<ApiVersion, OpenApiDocument>;
/** With the always-403 routes, which the served documents leave out. */
const completeDocs = completeDocuments(t.app);

beforeAll(async () => {
  await importFixture(t, doc);
  await disagreeWithNewestFirst(t.dataSource, TABLES, own.enterpriseId);
  token = await loginToken(t.app, own.user.email, own.user.password);
  documents = await servedDocuments(t.app.inject.bind(t.app));
});

afterAll(async () => {
  await t.close();
});

/** The document's path of a route path: `/api/v2/leads/:id` is `/api/v2/leads/{id}`. */
const documentPath = (url: string) => url.replace(/:([A-Za-z]+)/g, '{$1}');

const methodsAt = (document: OpenApiDocument, path: string): Record<string, JsonObject> =>
  document.paths[documentPath(path)] ?? {};

/**
 * What a write on a resource's path must answer. A resource that documents no write is
 * read-only: every write is 403. A writable one (leads) has its own suites for its real
 * writes; its routes that always refuse (marked in the complete documents) answer 403 and any
 * other method 405 with `Allow`.
 */
function expectedWrite(resource: Resource, path: string, method: string): 'own suites' | 403 | 405 {
  const served = (p: string) => Object.keys(methodsAt(documents[resource.version], p)).map((m) => m.toUpperCase());
  const writable = [resource.collection, `${resource.collection}/:id`].some((p) =>
    served(p).some((m) => (WRITES as readonly string[]).includes(m)),
  );
  if (!writable) return 403;
  if (served(path).includes(method)) return 'own suites';
  const complete = methodsAt(completeDocs[resource.version], path)[method.toLowerCase()];
  return complete?.[ALWAYS_FORBIDDEN] === undefined ? 405 : 403;
}

describe('resources found in the route registry', () => {
  it('are the same in both versions, and include the ones the contract names', () => {
    const names = (version: ApiVersion) => RESOURCES.filter((r) => r.version === version).map((r) => r.name);
    expect(names('v1')).toEqual(names('v2'));
    // The discovery itself must not silently find nothing.
    expect(names('v2')).toEqual(expect.arrayContaining(['leads', 'people', 'users', 'enterprises']));
  });

  it('include every resource a descriptor declares, in both versions (a writable one must route its reads)', () => {
    for (const version of ['v1', 'v2'] as const) {
      const names = RESOURCES.filter((r) => r.version === version).map((r) => r.name);
      expect({ version, missing: TENANT_RESOURCES.map((d) => d.path).filter((path) => !names.includes(path)) }).toEqual(
        {
          version,
          missing: [],
        },
      );
    }
  });
});

describe('writes answer 403 on a read-only resource, collection and records alike; 405 for methods a path does not have', () => {
  it.each(RESOURCES.map((r) => [label(r), r] as const))('%s', async (_label, resource) => {
    const ownId = await anyRowId(resource);
    const failures: string[] = [];
    for (const path of [resource.collection, `${resource.collection}/:id`]) {
      for (const method of WRITES) {
        const expected = expectedWrite(resource, path, method);
        if (expected === 'own suites') continue;
        // An unknown id too: a disabled write is refused before the record is looked up.
        for (const id of path.includes(':id') ? [ownId, randomUUID()] : ['']) {
          const url = path.replace(':id', id);
          const res = await t.app.inject({
            method,
            url,
            headers: apiHeaders(resource.version, token, own.enterpriseId),
            ...(method === 'DELETE' ? {} : { payload: {} }),
          });
          const refused =
            expected === 403
              ? res.statusCode === 403 && res.body === JSON.stringify(FORBIDDEN)
              : res.statusCode === 405 && res.headers.allow !== undefined;
          if (!refused)
            failures.push(`${method} ${url}: expected ${expected}, got ${res.statusCode} ${res.body.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});

/**
 * Whose rows a resource lists. A table with `enterprise_id` is a tenant table, listed a page
 * at a time. Any other (users, enterprises) is reached through the membership table, the
 * one whose primary key is a foreign key to users and one to enterprises, and is unpaginated.
 */
interface Scope {
  readonly paginated: boolean;
  /** The ids the list must show, in the list order, from the database. */
  readonly sql: string;
  readonly parameter: string;
}

const CALLER: Record<string, string> = { enterprises: own.enterpriseId, users: own.user.id };

const scopes = new Map<string, Promise<Scope>>();

/** The scope of a resource's table, looked up once (both versions share it). */
function scopeOf(resource: Resource): Promise<Scope> {
  const scope = scopes.get(resource.name) ?? findScope(resource);
  scopes.set(resource.name, scope);
  return scope;
}

async function findScope(resource: Resource): Promise<Scope> {
  const table = resource.name;
  const columns = await tableColumns(t.dataSource, table);
  if (columns.length === 0) {
    throw new Error(`GET ${resource.collection} has no table named "${table}": a resource's path is its table's name`);
  }
  for (const needed of ['id', 'created_at']) {
    if (!columns.includes(needed)) throw new Error(`table ${table} has no ${needed} column (the list order needs it)`);
  }
  if (columns.includes('enterprise_id')) {
    return {
      paginated: true,
      sql: `SELECT id FROM ${table} WHERE enterprise_id = $1 ORDER BY created_at DESC, id DESC`,
      parameter: own.enterpriseId,
    };
  }
  const keys = await foreignKeys(t.dataSource);
  for (const link of new Set(keys.map((k) => k.table))) {
    const linkKeys = keys.filter((k) => k.table === link && k.columns.length === 1);
    const pk = await primaryKey(t.dataSource, link);
    const mine = linkKeys.find((k) => k.referencedTable === table);
    const other = linkKeys.find((k) => k !== mine && CALLER[k.referencedTable] !== undefined);
    if (
      !mine ||
      !other ||
      pk.length !== 2 ||
      !pk.includes(mine.columns[0] ?? '') ||
      !pk.includes(other.columns[0] ?? '')
    ) {
      continue;
    }
    return {
      paginated: false,
      sql: `SELECT x.id FROM ${table} x JOIN ${link} l ON l.${mine.columns[0]} = x.id
             WHERE l.${other.columns[0]} = $1 ORDER BY x.created_at DESC, x.id DESC`,
      parameter: CALLER[other.referencedTable] ?? '',
    };
  }
  throw new Error(`table ${table} has no enterprise_id and no membership table leads to it`);
}

async function expectedIds(resource: Resource): Promise<string[]> {
  const scope = await scopeOf(resource);
  const rows = await selectRows<{ id: string }>(t.dataSource, scope.sql, [scope.parameter]);
  return rows.map((r) => r.id);
}

async function anyRowId(resource: Resource): Promise<string> {
  const [first] = await expectedIds(resource);
  if (first === undefined) throw noRecords(resource, 0);
  return first;
}

function noRecords(resource: Resource, count: number): Error {
  return new Error(
    `the fixture gives "${resource.name}" ${count} record(s) of the enterprise: give every resource several ` +
      'records in test/helpers/two-tenants.ts (some created at the same instant), so its list can be checked',
  );
}

describe('the list of an enterprise with records: all of them, newest first, meta.total from the table', () => {
  it.each(RESOURCES.map((r) => [label(r), r] as const))('%s', async (_label, resource) => {
    const scope = await scopeOf(resource);
    const expected = (await selectRows<{ id: string }>(t.dataSource, scope.sql, [scope.parameter])).map((r) => r.id);
    if (expected.length < 2) throw noRecords(resource, expected.length);
    // One page holds them all, so the whole order is compared.
    expect(expected.length).toBeLessThanOrEqual(100);

    const res = await t.app.inject({
      method: 'GET',
      url: resource.collection,
      headers: apiHeaders(resource.version, token, own.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ data: JsonObject[]; meta?: { total: number } }>();
    const idKey = resource.version === 'v1' ? 'ID' : 'id';
    const listed = body.data.map((record) => record[idKey]);
    const sameRecords = [...listed].map(String).sort().join() === [...expected].sort().join();
    if (sameRecords && listed.join() !== expected.join()) {
      throw new Error(
        `${label(resource)} lists the right records in another order than newest first (created_at, then id, ` +
          'descending): read the list through tenantTableRows (its order is newestFirst), never by another column',
      );
    }
    expect(listed).toEqual(expected);
    if (scope.paginated) expect(body.meta?.total).toBe(expected.length);
    else expect(body).not.toHaveProperty('meta');
  });
});

describe('OpenAPI tags (npm run openapi:lint checks them too)', () => {
  it.each(['v1', 'v2'] as const)('every operation of %s has a tag the document declares with a description', (v) => {
    const declared = new Map(
      ((documents[v].tags ?? []) as { name: string; description?: string }[]).map((tag) => [tag.name, tag.description]),
    );
    const failures: string[] = [];
    for (const [path, item] of Object.entries(documents[v].paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const tags = Array.isArray(operation.tags) ? (operation.tags as string[]) : [];
        if (tags.length === 0) failures.push(`${method.toUpperCase()} ${path}: no tag`);
        for (const tag of tags) {
          if (!declared.has(tag)) failures.push(`${method.toUpperCase()} ${path}: tag "${tag}" is not declared`);
          else if (!declared.get(tag)?.trim()) failures.push(`tag "${tag}" has no description`);
        }
      }
    }
    for (const [name, description] of declared)
      if (!description?.trim()) failures.push(`tag "${name}" has no description`);
    expect([...new Set(failures)]).toEqual([]);
  });
});

describe('the fixture can tell a wrong list order', () => {
  it.each(TENANT_RESOURCES.filter((r) => r.rows.table !== undefined).map((r) => [r.path, r.rows.table ?? ''] as const))(
    '%s: no date, time or number column orders the records as newest first does, up or down',
    async (path, table) => {
      const columns = await selectRows<{ column_name: string; data_type: string }>(
        t.dataSource,
        // Generated columns (a record's stored JSON) do not order records.
        `SELECT column_name, data_type FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [table],
      );
      const idsBy = async (order: string): Promise<string> =>
        (
          await selectRows<{ id: string }>(
            t.dataSource,
            `SELECT id FROM ${table} WHERE enterprise_id = $1 ORDER BY ${order}`,
            [own.enterpriseId],
          )
        )
          .map((r) => r.id)
          .join();
      const newest = await idsBy('created_at DESC, id DESC');
      const problems: string[] = [];
      for (const { column_name: column, data_type: type } of columns) {
        if (!SORTABLE_TYPE.test(type) || ['id', 'enterprise_id', 'created_at'].includes(column)) continue;
        const [count] = await selectRows<{ n: number }>(
          t.dataSource,
          `SELECT count(DISTINCT ${column})::int AS n FROM ${table} WHERE enterprise_id = $1`,
          [own.enterpriseId],
        );
        if (
          (count?.n ?? 0) < newest.split(',').length ||
          (await idsBy(`${column} ASC, id DESC`)) === newest ||
          (await idsBy(`${column} DESC, id DESC`)) === newest
        )
          problems.push(
            `${path}.${column}: a list ordered by it would pass the order checks; disagreeWithNewestFirst ` +
              '(test/helpers/two-tenants.ts) could not give its records distinct values, the newest a middle one',
          );
      }
      expect(problems).toEqual([]);
    },
  );
});
