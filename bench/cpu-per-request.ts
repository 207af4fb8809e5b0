import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAppKey } from '../src/config/app-key.js';
import { FieldCipher } from '../src/crypto/field-cipher.js';
import { BENCH_USER, prepareBenchDatabase, type BenchData } from './lib/bench-database.js';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { newSecret, sha256Hex } from '../src/auth/access-token.js';
import {
  cpuMs,
  cpuProfileFlags,
  databaseCpuMs,
  databaseCpuSince,
  startFlagsOf,
  startScriptNodeFlags,
  startServer,
  type RunningServer,
} from './lib/processes.js';

/**
 * `npm run bench:cpu`: the CPU time each request costs the server process, for people page 1
 * built from its rows (page cache off) and for feed pages of 500 people, on the service and on
 * the raw Fastify + pg baseline. CPU per request (from /proc) hardly moves with the load of a
 * shared machine, where a throughput figure does; on a saturated server its inverse is the
 * throughput. `BENCH_CPU_PROFILE=<dir>`: the service and the baseline write V8 CPU profiles into
 * `<dir>/service` and `<dir>/baseline`.
 *
 * `BENCH_PREVIOUS_MAIN=<checkout>/dist/src/main.js`: another build of the service (the commit
 * before a change) runs beside this one with the same settings and its own start flags; each
 * kind of request is measured on the two in `BENCH_ROUNDS` alternating rounds (3 by default),
 * so a slower or busier stretch of the run falls on both, and the ratio is printed.
 * `BENCH_PREVIOUS_NODE=<path to node>`: the Node binary that runs that build (the same as this
 * one's by default), to see what a change of Node alone moves with the same code on both.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const APP_KEY = `base64:${Buffer.alloc(32, 3).toString('base64')}`;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
/**
 * The service's RECORD_CACHE_MB: 0 (default), every feed page built from its rows; the default
 * size, a repeated page's records kept; a size below the records of the pages asked for in turn
 * (`BENCH_FEED_PAGES`), every request a miss that also keeps its records (what the cache costs a
 * first read).
 */
const RECORD_CACHE_MB = process.env.BENCH_RECORD_CACHE_MB ?? '0';
const FEED_PAGES = Number(process.env.BENCH_FEED_PAGES ?? 1);
const PREVIOUS_MAIN = process.env.BENCH_PREVIOUS_MAIN;
const PREVIOUS_NODE = process.env.BENCH_PREVIOUS_NODE ?? process.execPath;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * `BENCH_TOKEN_ABILITIES=read`: the requests carry an integration token limited to these
 * abilities and bound to the bench enterprise, so the access guard's scope checks run. A build
 * from before limits existed reads the same token as a full one.
 */
const TOKEN_ABILITIES = process.env.BENCH_TOKEN_ABILITIES?.split(',').map((ability) => ability.trim());
/**
 * `BENCH_CPU_PARTS=page`, `feed`, `lead` (a lead's retrieve) or `paths` (each GET path of
 * `BENCH_CPU_PATHS`, comma-separated, e.g. `/api/v2/organisations,/api/v1/people?page=1`):
 * measure only those.
 */
const PARTS = new Set((process.env.BENCH_CPU_PARTS ?? 'page,feed,lead').split(',').map((part) => part.trim()));
for (const part of PARTS) {
  if (part !== 'page' && part !== 'feed' && part !== 'lead' && part !== 'paths')
    throw new Error(`BENCH_CPU_PARTS: unknown ${part} (page, feed, lead, paths)`);
}
const PATHS = (process.env.BENCH_CPU_PATHS ?? '')
  .split(',')
  .map((path) => path.trim())
  .filter((path) => path !== '');
if (PARTS.has('paths') && PATHS.length === 0) throw new Error('BENCH_CPU_PARTS=paths needs BENCH_CPU_PATHS');

interface Measured {
  cpuMsPerRequest: number;
  /** CPU of the PostgreSQL server processes per request (all of them: run nothing else beside). */
  databaseCpuMsPerRequest: number;
  bytes: number;
}

/**
 * `REQUESTS` GETs of `path` (of each path in turn, for several), `CONCURRENCY` at a time, after a
 * warm-up; the server's CPU per request.
 */
async function measure(
  server: RunningServer,
  path: string | readonly string[],
  headers: Record<string, string>,
): Promise<Measured> {
  const paths = typeof path === 'string' ? [path] : path;
  let sent = 0;
  const get = async (): Promise<number> => {
    const asked = paths[sent++ % paths.length] ?? '';
    const res = await fetch(`${server.url}${asked}`, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${server.name} ${asked}: ${res.status} ${Buffer.from(body).toString()}`);
    return body.byteLength;
  };
  let bytes = 0;
  for (let i = 0; i < 50; i++) bytes = await get();
  const pid = server.process.pid ?? 0;
  const before = cpuMs(pid);
  const databaseBefore = databaseCpuMs();
  let left = REQUESTS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await get();
    }),
  );
  return {
    cpuMsPerRequest: (cpuMs(pid) - before) / REQUESTS,
    databaseCpuMsPerRequest: databaseCpuSince(databaseBefore) / REQUESTS,
    bytes,
  };
}

interface Compared {
  ours: Measured;
  /** The same requests on the build of BENCH_PREVIOUS_MAIN, when it runs. */
  previous?: Measured;
}

/** `measure` on this build and, beside a previous build, on both in alternating rounds. */
async function measureAgainst(
  service: RunningServer,
  previous: RunningServer | undefined,
  path: string | readonly string[],
  headers: Record<string, string>,
): Promise<Compared> {
  if (!previous) return { ours: await measure(service, path, headers) };
  const cpu = new Map<RunningServer, number>();
  const databaseCpu = new Map<RunningServer, number>();
  const bytes = new Map<RunningServer, number>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of round % 2 === 0 ? [service, previous] : [previous, service]) {
      const measured = await measure(server, path, headers);
      cpu.set(server, (cpu.get(server) ?? 0) + measured.cpuMsPerRequest / ROUNDS);
      databaseCpu.set(server, (databaseCpu.get(server) ?? 0) + measured.databaseCpuMsPerRequest / ROUNDS);
      bytes.set(server, measured.bytes);
    }
  }
  const of = (server: RunningServer): Measured => ({
    cpuMsPerRequest: cpu.get(server) ?? 0,
    databaseCpuMsPerRequest: databaseCpu.get(server) ?? 0,
    bytes: bytes.get(server) ?? 0,
  });
  return { ours: of(service), previous: of(previous) };
}

/** The previous build's row and how this build compares, when one ran. */
function previousLines(what: string, compared: Compared): { rows: string[]; summary: string[] } {
  const { ours, previous } = compared;
  if (!previous) return { rows: [], summary: [] };
  return {
    rows: [
      `| ${what.toLowerCase()} (previous build) | ${previous.cpuMsPerRequest.toFixed(2)} | ${previous.databaseCpuMsPerRequest.toFixed(2)} | ${previous.bytes} |`,
    ],
    summary: [
      `${what}: this build's CPU per request is ${(ours.cpuMsPerRequest / previous.cpuMsPerRequest).toFixed(3)} of the previous build's (${ROUNDS} alternating rounds).`,
    ],
  };
}

/**
 * The feed pages asked for: the first page of 500 people, or with `BENCH_FEED_PAGES=<n>` the first
 * n pages in turn (n times 500 distinct records: with a record cache smaller than them, every
 * request is a miss).
 */
async function feedPaths(server: RunningServer, headers: Record<string, string>): Promise<string[]> {
  const first = '/api/v2/changes?types=person&limit=500';
  const paths = [first];
  while (paths.length < FEED_PAGES) {
    const res = await fetch(`${server.url}${paths.at(-1) ?? first}`, { headers });
    const body = (await res.json()) as { meta: { next_cursor: string; has_more: boolean } };
    if (!body.meta.has_more) throw new Error(`BENCH_FEED_PAGES=${FEED_PAGES}: the feed has ${paths.length} pages`);
    paths.push(`${first}&cursor=${encodeURIComponent(body.meta.next_cursor)}`);
  }
  return paths;
}

async function loginToken(service: RunningServer): Promise<string> {
  const login = await fetch(`${service.url}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  return ((await login.json()) as { access_token: string }).access_token;
}

/** An integration token of the bench user, limited to `abilities` and bound to the bench enterprise. */
async function limitedToken(data: BenchData, abilities: string[]): Promise<string> {
  const client = new pg.Client({ connectionString: data.url });
  await client.connect();
  try {
    const id = randomUUID();
    const secret = newSecret();
    await client.query(
      `INSERT INTO access_tokens (id, user_id, token_sha256, kind, name, abilities, enterprise_ids)
       VALUES ($1, $2, $3, 'integration', 'bench', $4::text[], ARRAY[$5::uuid])`,
      [id, data.userId, sha256Hex(secret), abilities, data.enterpriseId],
    );
    return `${id}|${secret}`;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const key = parseAppKey(APP_KEY);
  if (!key) throw new Error('bench APP_KEY is malformed');
  const loadAtStart = loadavg()[0] ?? 0;
  const data = await prepareBenchDatabase(DATABASE_URL, new FieldCipher([key]));
  const env = { DATABASE_URL: data.url, APP_KEY, LOG_LEVEL: 'warn', MIGRATIONS_RUN: 'false' };
  const flags = [...startScriptNodeFlags(ROOT), ...cpuProfileFlags(PROFILE_DIR, 'service')];
  const service = await startServer(
    'service (page cache off)',
    join(ROOT, 'dist/src/main.js'),
    { ...env, RATE_LIMIT_PER_MINUTE: '1000000', PAGE_CACHE_MB: '0', RECORD_CACHE_MB: RECORD_CACHE_MB },
    flags,
  );
  const baseline = await startServer(
    'baseline',
    join(ROOT, 'dist/bench/baseline/server.js'),
    env,
    cpuProfileFlags(PROFILE_DIR, 'baseline'),
  );
  let previous: RunningServer | undefined;
  try {
    if (PREVIOUS_MAIN) {
      previous = await startServer(
        'previous build (page cache off)',
        PREVIOUS_MAIN,
        { ...env, RATE_LIMIT_PER_MINUTE: '1000000', PAGE_CACHE_MB: '0', RECORD_CACHE_MB: RECORD_CACHE_MB },
        [...startFlagsOf(PREVIOUS_MAIN), ...cpuProfileFlags(PROFILE_DIR, 'previous')],
        PREVIOUS_NODE,
      );
    }
    const token = TOKEN_ABILITIES ? await limitedToken(data, TOKEN_ABILITIES) : await loginToken(service);
    const headers = {
      authorization: `Bearer ${token}`,
      'x-enterprise-id': data.enterpriseId,
      accept: 'application/json',
      // fetch asks for gzip by default; the baseline compresses nothing, so neither side may.
      'accept-encoding': 'identity',
    };
    const rows: string[] = [];
    const pageOne = '/api/v2/people?page=1';
    const summary: string[] = [];
    if (PARTS.has('page')) {
      const compared = await measureAgainst(service, previous, pageOne, headers);
      const { ours } = compared;
      const theirs = await measure(baseline, pageOne, headers);
      const besidePrevious = previousLines('People page 1, built', compared);
      rows.push(
        `| people page 1, built (service) | ${ours.cpuMsPerRequest.toFixed(2)} | ${ours.databaseCpuMsPerRequest.toFixed(2)} | ${ours.bytes} |`,
        ...besidePrevious.rows,
        `| people page 1 (raw Fastify + pg baseline) | ${theirs.cpuMsPerRequest.toFixed(2)} | ${theirs.databaseCpuMsPerRequest.toFixed(2)} | ${theirs.bytes} |`,
      );
      summary.push(...besidePrevious.summary);
      summary.push(
        `People page 1: the service's CPU per request is ${(ours.cpuMsPerRequest / theirs.cpuMsPerRequest).toFixed(2)}x the baseline's ` +
          `(throughput ratio when CPU-bound: ${(theirs.cpuMsPerRequest / ours.cpuMsPerRequest).toFixed(2)}).`,
      );
    }
    if (PARTS.has('feed')) {
      const compared = await measureAgainst(service, previous, await feedPaths(service, headers), headers);
      const feed = compared.ours;
      const besidePrevious = previousLines('Change feed, 500 people', compared);
      rows.push(
        `| change feed, 500 people (service) | ${feed.cpuMsPerRequest.toFixed(2)} | ${feed.databaseCpuMsPerRequest.toFixed(2)} | ${feed.bytes} |`,
        ...besidePrevious.rows,
      );
      summary.push(
        ...besidePrevious.summary,
        `Change feed: ${Math.round((500 * 1000) / feed.cpuMsPerRequest).toLocaleString('en')} records per CPU second of the service.`,
      );
    }
    if (PARTS.has('lead')) {
      const list = await fetch(`${service.url}/api/v2/leads`, { headers });
      const { data: leads } = (await list.json()) as { data: { id: string }[] };
      const leadPath = `/api/v2/leads/${leads[0]?.id ?? 'none'}`;
      const compared = await measureAgainst(service, previous, leadPath, headers);
      const besidePrevious = previousLines('Lead retrieve', compared);
      rows.push(
        `| lead retrieve (service) | ${compared.ours.cpuMsPerRequest.toFixed(2)} | ${compared.ours.databaseCpuMsPerRequest.toFixed(2)} | ${compared.ours.bytes} |`,
        ...besidePrevious.rows,
      );
      summary.push(...besidePrevious.summary);
    }
    for (const path of PARTS.has('paths') ? PATHS : []) {
      // v1 names the enterprise in its own header.
      const compared = await measureAgainst(service, previous, path, { ...headers, enterpriseid: data.enterpriseId });
      const besidePrevious = previousLines(`GET ${path}`, compared);
      rows.push(
        `| GET ${path} (service) | ${compared.ours.cpuMsPerRequest.toFixed(2)} | ${compared.ours.databaseCpuMsPerRequest.toFixed(2)} | ${compared.ours.bytes} |`,
        ...besidePrevious.rows,
      );
      summary.push(...besidePrevious.summary);
    }
    process.stdout.write(
      [
        `# bench:cpu on Node ${process.version}${previous ? ` (previous build on ${PREVIOUS_NODE})` : ''} (${REQUESTS} requests, ${CONCURRENCY} at a time; load average ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end)`,
        '',
        '| request | server CPU ms per request | database CPU ms per request | body bytes |',
        '| --- | ---: | ---: | ---: |',
        ...rows,
        '',
        ...summary,
        '',
      ].join('\n'),
    );
  } finally {
    await previous?.stop();
    await baseline.stop();
    await service.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
