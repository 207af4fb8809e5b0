import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { InjectOptions } from 'light-my-request';
import { routeRegistryOf } from '../../src/app.factory.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, loginToken } from '../helpers/fixtures.js';
import { fuzzRequest, leadWriteRequest, type FuzzRequest, type FuzzWorld } from '../helpers/fuzz-arbitraries.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
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

/**
 * Tables no request may change (leads and access tokens are counted separately): every read-only
 * resource's table, from the descriptors, and the tables behind them.
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
      resource.writable || resource.rows.table === undefined ? [] : [resource.rows.table],
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

async function leadRows(): Promise<Map<string, string>> {
  const rows = await selectRows<{ id: string; json: string }>(
    t.dataSource,
    `SELECT id, row_to_json(l)::text AS json FROM leads l`,
  );
  return new Map(rows.map((r) => [r.id, r.json]));
}

async function tokenCount(): Promise<number> {
  const [row] = await selectRows<{ n: number }>(t.dataSource, `SELECT count(*)::int AS n FROM access_tokens`);
  return row?.n ?? 0;
}

/** What the run answered, to compare with what the database holds afterwards. */
const created = new Set<string>();
const updated = new Set<string>();
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
    created.add(id);
  }
  if (res.statusCode === 200 && request.method === 'PUT') {
    const id = /\/leads\/([^/?]+)/.exec(request.url)?.[1];
    if (id) updated.add(id.toLowerCase());
  }
  if (res.statusCode === 200 && request.url.includes('/login')) logins += 1;
  assertNoPrototypePollution();
}

describe(`API fuzzing (${RUNS} cases per property)`, () => {
  let leadsBefore = new Map<string, string>();
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
    leadsBefore = await leadRows();
    for (const table of UNCHANGED_TABLES) digestsBefore.set(table, await tableDigest(table));
    tokensBefore = await tokenCount();
  });

  afterAll(async () => {
    const summary = [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
    process.stdout.write(`\nFuzz: ${cases} requests; statuses ${summary.join(', ')}; ${created.size} leads created.\n`);
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
    'lead creates and updates with hostile bodies: the same properties',
    async () => {
      await fc.assert(
        fc.asyncProperty(leadWriteRequest(world), (request) => check(request)),
        { numRuns: Math.ceil(RUNS / 2), seed: SEED },
      );
    },
    TIMEOUT_MS,
  );

  it('the database holds exactly the leads answered 201, and nothing else changed', async () => {
    const after = await leadRows();
    const expected = new Set([...leadsBefore.keys(), ...created]);
    expect([...after.keys()].sort()).toEqual([...expected].sort());
    for (const [id, json] of leadsBefore) {
      if (!updated.has(id)) expect(after.get(id)).toBe(json);
    }
    // The other enterprise's lead was never updated through the first enterprise's token.
    expect(after.get(foreign.ids.leads)).toBe(leadsBefore.get(foreign.ids.leads));
    for (const table of UNCHANGED_TABLES)
      expect(`${table} ${await tableDigest(table)}`).toBe(`${table} ${digestsBefore.get(table)}`);
    expect(await tokenCount()).toBe(tokensBefore + logins);
    expect(created.size).toBeGreaterThan(0);
  });
});
