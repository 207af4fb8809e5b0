import { writableAtAll } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { InjectOptions } from 'light-my-request';
import { routeRegistryOf } from '../../src/app.factory.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, loginToken } from '../helpers/fixtures.js';
import {
  fuzzRequest,
  writeRequest,
  type FuzzRequest,
  type FuzzWorld,
  type WriteTarget,
} from '../helpers/fuzz-arbitraries.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { writeTargets } from '../helpers/write-targets.js';
import { twoTenants } from '../helpers/two-tenants.js';

/**
 * Property-based fuzzing over every registered route of both versions (and the unversioned
 * ones): hostile methods, path ids, `page` values, headers, content types and bodies.
 * `npm test` runs a bounded number of cases; `npm run fuzz` sets FUZZ_RUNS for a long run, and
 * FUZZ_SEED replays a run (the seed of a failure is in its report).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? '') || 1000;
/** Long runs (`npm run fuzz`) need more than Jest's 60 s a test. */
const TIMEOUT_MS = 60_000 + RUNS * 25;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const { doc, own, foreign } = twoTenants();
const t: TestApp = await createTestApp({ SIGNPROVIDER_A_SECRET: 'fuzz-secret' });
let world: FuzzWorld;

/** The tables of the resources the API writes (in either version), from the descriptors. */
const WRITABLE = TENANT_RESOURCES.filter(writableAtAll).map((resource) => {
  const table = resource.rows.table;
  if (table === undefined) throw new Error(`${resource.path} is writable but has no tenant table`);
  return { path: resource.path, table };
});

/**
 * Tables no request may change (the writable resources' tables and access tokens are counted
 * separately): every read-only resource's table, from the descriptors, and the tables behind them.
 */
const UNCHANGED_TABLES = [
  ...new Set([
    'enterprises',
    'users',
    'memberships',
    'financials',
    'phone_numbers',
    'emails',
    'addresses',
    'signing_documents',
    ...TENANT_RESOURCES.flatMap((resource) =>
      writableAtAll(resource) || resource.rows.table === undefined ? [] : [resource.rows.table],
    ),
  ]),
];

const PROTOTYPES: object[] = [
  Object.prototype,
  Array.prototype,
  Function.prototype,
  String.prototype,
  Number.prototype,
  Boolean.prototype,
];
const prototypeKeys = () => PROTOTYPES.map((p) => Reflect.ownKeys(p).map(String).sort().join(','));
const PRISTINE = prototypeKeys();

function assertNoPrototypePollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const key of ['polluted', 'isAdmin', 'title', 'x', 'a']) {
    if (probe[key] !== undefined) throw new Error(`Object.prototype.${key} was set`);
  }
  if (prototypeKeys().join('|') !== PRISTINE.join('|')) throw new Error('a built-in prototype gained or lost a key');
}

async function tableDigest(table: string): Promise<string> {
  const [row] = await selectRows<{ n: number; digest: string }>(
    t.dataSource,
    `SELECT count(*)::int AS n, md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) AS digest FROM ${table} x`,
  );
  return `${row?.n}:${row?.digest}`;
}

async function rowsOf(table: string): Promise<Map<string, string>> {
  const rows = await selectRows<{ id: string; json: string }>(
    t.dataSource,
    `SELECT id, row_to_json(x)::text AS json FROM ${table} x`,
  );
  return new Map(rows.map((r) => [r.id, r.json]));
}

async function tokenCount(): Promise<number> {
  const [row] = await selectRows<{ n: number }>(t.dataSource, `SELECT count(*)::int AS n FROM access_tokens`);
  return row?.n ?? 0;
}

/** What the run answered, by resource path, to compare with what the database holds afterwards. */
const created = new Map(WRITABLE.map(({ path }) => [path, new Set<string>()]));
const updated = new Map(WRITABLE.map(({ path }) => [path, new Set<string>()]));
const pathOf = (url: string): string | undefined => /^\/api\/v[12]\/([^/?#]+)/.exec(url)?.[1]?.toLowerCase();
let logins = 0;
let cases = 0;
const statuses = new Map<number, number>();

function createdId(body: unknown): string | undefined {
  const data = (body as { data?: { id?: unknown; ID?: unknown } } | null)?.data;
  const id = data?.id ?? data?.ID;
  return typeof id === 'string' ? id : undefined;
}

/** Sends one case and checks the per-request properties; throws to make fast-check shrink. */
async function check(request: FuzzRequest): Promise<void> {
  cases += 1;
  const res = await t.app.inject({
    method: request.method as InjectOptions['method'],
    url: request.url,
    headers: request.headers,
    payload: request.payload,
  });
  statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
  const where = `${request.label} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  if (res.statusCode >= 500) throw new Error(`5xx: ${where}`);
  if (res.statusCode >= 400 && request.method !== 'HEAD') {
    if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) {
      throw new Error(`error answer is not JSON: ${where}`);
    }
    const parsed = JSON.parse(res.body) as { message?: unknown };
    if (typeof parsed.message !== 'string' || parsed.message === '') throw new Error(`no message: ${where}`);
  }
  if (res.statusCode === 201) {
    const id = createdId(res.json());
    if (!id) throw new Error(`201 without a record id: ${where}`);
    const records = created.get(pathOf(request.url) ?? '');
    if (!records) throw new Error(`201 from a resource the descriptors do not call writable: ${where}`);
    records.add(id);
  }
  if (res.statusCode === 200 && request.method === 'PUT') {
    const id = /^\/api\/v[12]\/[^/?#]+\/([^/?#]+)/.exec(request.url)?.[1];
    if (id) updated.get(pathOf(request.url) ?? '')?.add(id.toLowerCase());
  }
  if (res.statusCode === 200 && request.url.includes('/login')) logins += 1;
  assertNoPrototypePollution();
}

describe(`API fuzzing (${RUNS} cases per property)`, () => {
  const rowsBefore = new Map<string, Map<string, string>>();
  let targets: WriteTarget[] = [];
  const digestsBefore = new Map<string, string>();
  let tokensBefore = 0;

  beforeAll(async () => {
    await importFixture(t, doc);
    world = {
      // Logout would revoke the tokens every case uses; it has its own suite (token-lifecycle).
      routes: routeRegistryOf(t.app)
        .list()
        .filter((route) => !route.url.endsWith('/logout')),
      own,
      foreign,
      ownToken: await loginToken(t.app, own.user.email, own.user.password),
      foreignToken: await loginToken(t.app, foreign.user.email, foreign.user.password),
    };
    for (const { table } of WRITABLE) rowsBefore.set(table, await rowsOf(table));
    targets = await writeTargets(t.app);
    for (const table of UNCHANGED_TABLES) digestsBefore.set(table, await tableDigest(table));
    tokensBefore = await tokenCount();
  });

  afterAll(async () => {
    const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
    const made = WRITABLE.map(({ path }) => `${created.get(path)?.size ?? 0} ${path}`).join(', ');
    process.stdout.write(`\nFuzz: ${cases} requests; statuses ${summary.join(', ')}; created ${made}.\n`);
    await t.close();
  });

  it(
    'any request to any route: never a 5xx, errors are JSON with a message, no prototype pollution',
    async () => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest(world), (request) => check(request)),
        { numRuns: RUNS, seed: SEED },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'creates and updates of every writable resource with hostile bodies: the same properties',
    async () => {
      expect(targets.length).toBeGreaterThan(0);
      await fc.assert(
        fc.asyncProperty(writeRequest(world, targets), (request) => check(request)),
        { numRuns: Math.ceil(RUNS / 2), seed: SEED },
      );
    },
    TIMEOUT_MS,
  );

  it('the database holds exactly the records answered 201, and nothing else changed', async () => {
    for (const { path, table } of WRITABLE) {
      const before = rowsBefore.get(table) ?? new Map<string, string>();
      const after = await rowsOf(table);
      const expected = new Set([...before.keys(), ...(created.get(path) ?? [])]);
      expect(`${table}: ${[...after.keys()].sort().join(',')}`).toBe(`${table}: ${[...expected].sort().join(',')}`);
      for (const [id, json] of before) {
        if (!updated.get(path)?.has(id)) expect(after.get(id)).toBe(json);
      }
      // The other enterprise's record was never updated through the first enterprise's token.
      const foreignId = foreign.ids[path];
      if (foreignId !== undefined) expect(after.get(foreignId)).toBe(before.get(foreignId));
    }
    for (const table of UNCHANGED_TABLES)
      expect(`${table} ${await tableDigest(table)}`).toBe(`${table} ${digestsBefore.get(table)}`);
    expect(await tokenCount()).toBe(tokensBefore + logins);
    for (const { path } of WRITABLE) expect(`${path}: ${(created.get(path)?.size ?? 0) > 0}`).toBe(`${path}: true`);
  });
});
