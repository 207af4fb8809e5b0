import pg from 'pg';
import { createHmac } from 'node:crypto';
import { pageRequest } from '../../src/common/http/pagination.js';
import type { SqlExecutor } from '../../src/database/sql.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { BENCH_DOCUMENT, BENCH_USER, type BenchData } from './bench-database.js';
import { mergeLatencies, runLoad, type LoadOptions, type LoadResult } from './load.js';
import type { RunningServer } from './processes.js';

/** Connections of every scenario but login's. */
export const CONNECTIONS = 50;
/** Connections writing one record at once in its scenario. */
export const HOT_RECORD_CONNECTIONS = 10;
/** Provider A's webhook secret the bench services are started with. */
export const WEBHOOK_SECRET = 'bench-webhook-secret';
/** The bench services' APP_KEY. */
export const APP_KEY = `base64:${Buffer.alloc(32, 3).toString('base64')}`;

/**
 * What every bench service starts with: the bench database (migrated by the bench), its key, a
 * rate limit no scenario reaches, warnings only in its log, provider A's webhook secret; then
 * `BENCH_SERVICE_ENV` (`NAME=value,NAME=value`), to measure a setting's share of a difference.
 */
export function benchServiceEnv(databaseUrl: string, appKey = APP_KEY): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    APP_KEY: appKey,
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    SIGNPROVIDER_A_SECRET: WEBHOOK_SECRET,
    ...extraServiceEnv(process.env.BENCH_SERVICE_ENV ?? ''),
  };
}

/** `NAME=value,NAME=value` as variables; a malformed entry stops the bench rather than being dropped. */
export function extraServiceEnv(list: string): Record<string, string> {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(entry);
      if (!match?.[1] || match[2] === undefined) throw new Error(`BENCH_SERVICE_ENV: ${entry} is not NAME=value`);
      return [match[1], match[2]] as const;
    });
  return Object.fromEntries(entries);
}

export type Scenario = {
  name: string;
  baseline?: boolean;
  /** records in each answer */
  records?: number;
  /** The status every answer should have (default: any 2xx). */
  status?: number;
} & Omit<LoadOptions, 'url' | 'durationSeconds'> & { path: string };

/** One record of each resource, by path: the one each retrieve scenario asks for. */
export type SampleIds = ReadonlyMap<string, string>;

/** The newest record of each resource in the bench enterprise, read through its own descriptor. */
export async function sampleIds(data: BenchData): Promise<SampleIds> {
  const client = new pg.Client({ connectionString: data.url });
  await client.connect();
  try {
    const db: SqlExecutor = {
      query: async (sql, params): Promise<unknown> => (await client.query<Record<string, unknown>>(sql, params)).rows,
    };
    const ids = new Map<string, string>();
    for (const resource of TENANT_RESOURCES) {
      const { rows } = await resource.rows.listRows(db, data.enterpriseId, pageRequest(1));
      const id = rows[0]?.id;
      if (!id) throw new Error(`The bench database has no ${resource.path}: add some in bench/lib/bench-database.ts`);
      ids.set(resource.path, id);
    }
    return ids;
  } finally {
    await client.end();
  }
}

/**
 * A list page and a retrieve of every resource, derived from the descriptors (a new resource is
 * measured, and compared with the baseline, without edits), and the enterprise retrieve.
 */
export function readScenarios(ids: SampleIds, data: BenchData, v2: Record<string, string>): Scenario[] {
  const reads = TENANT_RESOURCES.flatMap((resource): Scenario[] => [
    {
      name: resource.rows.paged ? `v2 ${resource.path} page 1` : `v2 ${resource.path} list`,
      baseline: true,
      path: resource.rows.paged ? `/api/v2/${resource.path}?page=1` : `/api/v2/${resource.path}`,
      headers: v2,
      connections: CONNECTIONS,
    },
    {
      name: `v2 ${resource.model.toLowerCase()} retrieve`,
      baseline: true,
      path: `/api/v2/${resource.path}/${ids.get(resource.path) ?? ''}`,
      headers: v2,
      connections: CONNECTIONS,
    },
  ]);
  const enterprise: Scenario = {
    name: 'v2 enterprise retrieve',
    baseline: true,
    path: `/api/v2/enterprises/${data.enterpriseId}`,
    headers: v2,
    connections: CONNECTIONS,
  };
  return [...reads, enterprise];
}

/** The body of both lead update scenarios. */
const leadUpdate = JSON.stringify({ title: 'Bench lead, updated', person_name: 'Jane Citizen', finance_amount: 26000 });

export function scenarios(data: BenchData, ids: SampleIds, token: string, pageOneTag: string): Scenario[] {
  const v2 = { authorization: `Bearer ${token}`, 'x-enterprise-id': data.enterpriseId, accept: 'application/json' };
  const v1 = { authorization: `Bearer ${token}`, enterpriseid: data.enterpriseId, accept: 'application/json' };
  const webhookBody = JSON.stringify({ event: 'document.viewed', data: { documentId: BENCH_DOCUMENT } });
  return [
    ...readScenarios(ids, data, v2),
    {
      name: 'v2 people page 1, revalidated (304)',
      path: '/api/v2/people?page=1',
      headers: { ...v2, 'if-none-match': pageOneTag },
      status: 304,
      connections: CONNECTIONS,
    },
    {
      name: 'v2 people page 1, gzip',
      records: 100,
      path: '/api/v2/people?page=1',
      headers: { ...v2, 'accept-encoding': 'gzip' },
      connections: CONNECTIONS,
    },
    {
      name: 'v2 change feed, 100 people',
      records: 100,
      path: '/api/v2/changes?types=person&limit=100',
      headers: v2,
      connections: CONNECTIONS,
    },
    {
      name: 'v2 change feed, 500 people',
      records: 500,
      path: '/api/v2/changes?types=person&limit=500',
      headers: v2,
      connections: CONNECTIONS,
    },
    { name: 'v1 people page 1', path: '/api/v1/people?page=1', headers: v1, connections: CONNECTIONS },
    {
      name: `v2 people last page (${data.lastPage})`,
      path: `/api/v2/people?page=${data.lastPage}`,
      headers: v2,
      connections: CONNECTIONS,
    },
    {
      name: 'v2 lead create',
      path: '/api/v2/leads',
      method: 'POST',
      headers: { ...v2, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Bench lead', person_name: 'Jane Citizen', finance_amount: 25000 }),
      connections: CONNECTIONS,
    },
    {
      name: 'v2 lead update',
      path: `/api/v2/leads/${data.leadId}`,
      paths: data.leadIds.map((id) => `/api/v2/leads/${id}`),
      method: 'PUT',
      headers: { ...v2, 'content-type': 'application/json' },
      body: leadUpdate,
      connections: CONNECTIONS,
    },
    {
      // Writers queued on one row: each waits for the one before it to commit.
      name: 'v2 lead update, one record',
      path: `/api/v2/leads/${data.leadId}`,
      method: 'PUT',
      headers: { ...v2, 'content-type': 'application/json' },
      body: leadUpdate,
      connections: HOT_RECORD_CONNECTIONS,
    },
    {
      name: 'login',
      path: '/api/v2/login',
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(BENCH_USER),
      connections: 10,
    },
    {
      name: 'provider A webhook',
      path: '/api/webhooks/signprovider-a',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-signprovidera-signature': createHmac('sha256', WEBHOOK_SECRET).update(webhookBody).digest('hex'),
      },
      body: webhookBody,
      connections: CONNECTIONS,
    },
  ];
}

/**
 * `BENCH_SCENARIOS`: only the scenarios whose names contain one of these comma-separated words
 * (e.g. `people page 1,lead retrieve`); every scenario when unset.
 */
export function selected(list: Scenario[]): Scenario[] {
  const words = (process.env.BENCH_SCENARIOS ?? '')
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  if (words.length === 0) return list;
  const kept = list.filter((s) => words.some((w) => s.name.includes(w)));
  if (kept.length === 0) throw new Error(`BENCH_SCENARIOS: no scenario matches ${words.join(', ')}`);
  return kept;
}

export async function login(server: RunningServer): Promise<string> {
  const res = await fetch(`${server.url}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  if (!res.ok) throw new Error(`bench login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

export async function checkScenario(server: RunningServer, target: string, s: Scenario): Promise<void> {
  const check = await fetch(`${server.url}${s.path}`, { method: s.method ?? 'GET', headers: s.headers, body: s.body });
  const expected = s.status === undefined ? check.status < 300 : check.status === s.status;
  if (!expected) throw new Error(`${target} ${s.name}: ${check.status} ${await check.text()}`);
}

/**
 * Rounds of one scenario on one server, merged: mean throughput, p50 and p99 over every request of
 * every round (their latency histograms added), all the errors, the highest RSS.
 */
export function merge(rounds: LoadResult[]): LoadResult {
  const mean = (pick: (r: LoadResult) => number) => rounds.reduce((sum, r) => sum + pick(r), 0) / rounds.length;
  return {
    requestsPerSecond: mean((r) => r.requestsPerSecond),
    ...mergeLatencies(rounds.map((r) => r.latencies)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    peakRssMiB: Math.max(...rounds.map((r) => r.peakRssMiB)),
    cpuUsPerRequest: mean((r) => r.cpuUsPerRequest),
  };
}

/** Seconds of unrecorded load a newly started server gets before the first scenario measured on it. */
export const SERVER_WARM_UP_SECONDS = 5;

/**
 * Loads each newly started server with a scenario for SERVER_WARM_UP_SECONDS (after the load's own
 * 2-s warm-up), recording nothing: without it the first scenario measured on a new process also
 * measured the process warming up as a whole (its code compiled, its heap and pools growing). On
 * the Redis-limit target that first scenario's p99 was 2.7 and 3.2 times its p50 in two runs,
 * where every later one stayed at 2.2 or below; by hand, three 8-s loads in a row of one request a
 * new process answered 404 gave 4.7, then 1.8 and 2.0.
 */
export async function warmUpServers(servers: readonly RunningServer[], s: Scenario): Promise<void> {
  for (const server of servers) {
    await runLoad(server, { ...s, url: `${server.url}${s.path}`, durationSeconds: SERVER_WARM_UP_SECONDS });
  }
}
