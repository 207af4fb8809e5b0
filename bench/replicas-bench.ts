/**
 * Read replicas, measured (npm run bench:replicas): two API instances (the build in dist/, as
 * `npm start` runs it) against a primary and one streaming replica of their own (initdb,
 * pg_basebackup -R; bench/lib/replica-pair.ts), the read scenarios of the main benchmark, load
 * split evenly over both instances. Each scenario runs with DATABASE_REPLICA_URLS unset (primary
 * alone) and set, in rounds of both whose order alternates (ABBA, so drift of the machine falls on
 * both alike), and prints:
 *
 * - throughput of the two instances together, and its ratio replica/primary-only;
 * - how the reads split between the servers (statements each executed, from their own
 *   pg_stat_statements);
 * - the routing's own cost: the instances' CPU time per request with replicas against without
 *   (target: under 5% more). CPU time per request barely moves with other load on the machine,
 *   unlike throughput; quote the load average (printed) beside every figure.
 *
 * Every start of the instances is followed by a warm-up of every scenario (BENCH_WARMUP_SECONDS,
 * 3 s each, not measured), so the first scenario measured does not carry the compiler's warm-up
 * and the opening of the pools while the later ones do not.
 *
 * BENCH_CPU_PROFILE_DIR: each instance writes a V8 CPU profile into `primary/` or `replica/` there
 * (read them with dist/bench/profile-summary.js): where the two setups' CPU differs.
 *
 * BENCH_SECONDS (10), BENCH_ROUNDS (2), BENCH_CONNECTIONS per instance (10), BENCH_PEOPLE
 * (20,000 here). With REDIS_URL set, the instances share rate limits and read-your-writes
 * positions through it (one Redis GET per read).
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FieldCipher } from '../src/crypto/field-cipher.js';
import { parseAppKey } from '../src/config/app-key.js';
import { BENCH_USER, prepareBenchDatabase, type BenchData } from './lib/bench-database.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { cpuProfileFlags, startScriptNodeFlags, startServer, type RunningServer } from './lib/processes.js';
import { queryOn, ReplicaPair } from './lib/replica-pair.js';
import { benchServiceEnv } from './lib/scenarios.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const APP_KEY = `base64:${Buffer.alloc(32, 9).toString('base64')}`;
const REDIS_URL = process.env.REDIS_URL;

type Setup = 'primary only' | 'primary + replica';

interface Scenario {
  name: string;
  path: string;
}

interface Servers {
  /** The bench database on the replica. */
  readonly replica: string;
  readonly database: string;
  /** The servers' own `postgres` databases, where pg_stat_statements is. */
  readonly primaryStats: string;
  readonly replicaStats: string;
}

interface Measured {
  requestsPerSecond: number;
  cpuUsPerRequest: number;
  non2xx: number;
  errors: number;
  statements: { primary: number; replica: number };
}

function scenarios(data: BenchData): Scenario[] {
  return [
    { name: 'v2 people page 1', path: '/api/v2/people?page=1' },
    { name: 'v2 lead retrieve', path: `/api/v2/leads/${data.leadId}` },
    { name: `v2 people last page (${data.lastPage})`, path: `/api/v2/people?page=${data.lastPage}` },
  ];
}

async function startInstances(data: BenchData, replicaUrl: string | undefined): Promise<RunningServer[]> {
  const env = {
    ...benchServiceEnv(data.url, APP_KEY),
    ...(replicaUrl ? { DATABASE_REPLICA_URLS: replicaUrl } : {}),
    ...(REDIS_URL ? { REDIS_URL } : {}),
  };
  const profiles = process.env.BENCH_CPU_PROFILE_DIR;
  const flags = [...startScriptNodeFlags(ROOT), ...cpuProfileFlags(profiles, replicaUrl ? 'replica' : 'primary')];
  const main = join(ROOT, 'dist/src/main.js');
  return Promise.all([startServer('api-1', main, env, flags), startServer('api-2', main, env, flags)]);
}

async function login(server: RunningServer): Promise<string> {
  const res = await fetch(`${server.url}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  if (!res.ok) throw new Error(`login failed: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * Statements a server executed in the bench database so far, from its own pg_stat_statements
 * (the extension lives in the server's `postgres` database, `url`).
 */
async function statementsOn(url: string, database: string): Promise<number> {
  const [row] = await queryOn<{ calls: string | null }>(
    url,
    `SELECT sum(s.calls)::text AS calls FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = $1`,
    [database],
  );
  return Number(row?.calls ?? 0);
}

async function measure(
  instances: RunningServer[],
  token: string,
  data: BenchData,
  scenario: Scenario,
  servers: Servers,
): Promise<Measured> {
  const headers = requestHeaders(token, data);
  const count = async () => ({
    primary: await statementsOn(servers.primaryStats, servers.database),
    replica: await statementsOn(servers.replicaStats, servers.database),
  });
  const before = await count();
  const results: LoadResult[] = await Promise.all(
    instances.map((instance) =>
      runLoad(instance, {
        url: `${instance.url}${scenario.path}`,
        headers,
        connections: CONNECTIONS,
        durationSeconds: SECONDS,
      }),
    ),
  );
  const after = await count();
  const total = results.reduce((sum, r) => sum + r.requestsPerSecond, 0);
  return {
    requestsPerSecond: total,
    cpuUsPerRequest: results.reduce((sum, r) => sum + r.cpuUsPerRequest * r.requestsPerSecond, 0) / Math.max(1, total),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    statements: { primary: after.primary - before.primary, replica: after.replica - before.replica },
  };
}

function requestHeaders(token: string, data: BenchData): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'x-enterprise-id': data.enterpriseId, accept: 'application/json' };
}

async function warmUp(instances: RunningServer[], token: string, data: BenchData, scenario: Scenario): Promise<void> {
  await Promise.all(
    instances.map((instance) =>
      runLoad(instance, {
        url: `${instance.url}${scenario.path}`,
        headers: requestHeaders(token, data),
        connections: CONNECTIONS,
        durationSeconds: WARMUP_SECONDS,
      }),
    ),
  );
}

function average(runs: Measured[]): Measured {
  const mean = (pick: (m: Measured) => number) => runs.reduce((sum, m) => sum + pick(m), 0) / runs.length;
  return {
    requestsPerSecond: mean((m) => m.requestsPerSecond),
    cpuUsPerRequest: mean((m) => m.cpuUsPerRequest),
    non2xx: runs.reduce((sum, m) => sum + m.non2xx, 0),
    errors: runs.reduce((sum, m) => sum + m.errors, 0),
    statements: {
      primary: runs.reduce((sum, m) => sum + m.statements.primary, 0),
      replica: runs.reduce((sum, m) => sum + m.statements.replica, 0),
    },
  };
}

async function main(): Promise<void> {
  const key = parseAppKey(APP_KEY);
  if (!key) throw new Error('bad bench key');
  process.stdout.write('Starting a primary and a streaming replica (initdb, pg_basebackup -R)...\n');
  const pair = await ReplicaPair.start(['shared_buffers = 256MB', 'max_connections = 100']);
  try {
    const data = await prepareBenchDatabase(pair.primaryUrl, new FieldCipher([key]));
    await pair.waitForReplay();
    const replicaUrl = new URL(data.url);
    replicaUrl.port = String(pair.replicaPort);
    const servers: Servers = {
      replica: replicaUrl.toString(),
      database: new URL(data.url).pathname.slice(1),
      primaryStats: pair.primaryUrl,
      replicaStats: pair.replicaUrl,
    };
    const measured = new Map<string, Record<Setup, Measured[]>>();
    for (let round = 1; round <= ROUNDS; round++) {
      const order = ['primary only', 'primary + replica'] as const;
      for (const setup of round % 2 === 1 ? order : [...order].reverse()) {
        const instances = await startInstances(data, setup === 'primary + replica' ? servers.replica : undefined);
        try {
          // Let every instance's first probes find the replica.
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          const token = await login(instances[0] as RunningServer);
          if (WARMUP_SECONDS > 0) {
            for (const scenario of scenarios(data)) await warmUp(instances, token, data, scenario);
          }
          for (const scenario of scenarios(data)) {
            const runs = measured.get(scenario.name) ?? { 'primary only': [], 'primary + replica': [] };
            runs[setup].push(await measure(instances, token, data, scenario, servers));
            measured.set(scenario.name, runs);
            process.stdout.write(`  round ${round}, ${setup}: ${scenario.name} done\n`);
          }
        } finally {
          await Promise.all(instances.map((instance) => instance.stop()));
        }
      }
    }
    const [one, five, fifteen] = loadavg().map((n) => n.toFixed(2));
    process.stdout.write(
      `\nTwo instances x ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} rounds in ABBA order ` +
        `(after ${WARMUP_SECONDS} s of warm-up per scenario); ` +
        `read-your-writes positions ${REDIS_URL ? 'in Redis' : 'in process'}; load average ${one} ${five} ${fifteen}\n\n`,
    );
    process.stdout.write(
      '| scenario | primary only (req/s) | primary + replica (req/s) | throughput ratio | statements on the replica | API CPU per request, primary only (µs) | with replica (µs) | CPU difference |\n' +
        '|---|---|---|---|---|---|---|---|\n',
    );
    for (const [name, runs] of measured) {
      const alone = average(runs['primary only']);
      const routed = average(runs['primary + replica']);
      const share = routed.statements.replica / Math.max(1, routed.statements.replica + routed.statements.primary);
      const cost = routed.cpuUsPerRequest / Math.max(1, alone.cpuUsPerRequest) - 1;
      process.stdout.write(
        `| ${name} | ${alone.requestsPerSecond.toFixed(0)} | ${routed.requestsPerSecond.toFixed(0)} | ` +
          `${(routed.requestsPerSecond / Math.max(1, alone.requestsPerSecond)).toFixed(2)} | ${(share * 100).toFixed(0)}% | ` +
          `${alone.cpuUsPerRequest.toFixed(0)} | ${routed.cpuUsPerRequest.toFixed(0)} | ${(cost * 100).toFixed(1)}% |\n`,
      );
      if (alone.non2xx + alone.errors + routed.non2xx + routed.errors > 0) {
        process.stdout.write(
          `  ${name}: non-2xx ${alone.non2xx} / ${routed.non2xx}, errors ${alone.errors} / ${routed.errors}\n`,
        );
      }
    }
  } finally {
    await pair.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
