import { execSync } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { FieldCipher } from '../src/crypto/field-cipher.js';
import { hashPassword, verifyPassword } from '../src/auth/password-hasher.js';
import { parseAppKey } from '../src/config/app-key.js';
import { prepareBenchDatabase, type BenchData } from './lib/bench-database.js';
import { runLoad, type LoadResult } from './lib/load.js';
import {
  APP_KEY,
  benchServiceEnv,
  CONNECTIONS,
  checkScenario,
  login,
  merge,
  sampleIds,
  scenarios,
  selected,
  type SampleIds,
  type Scenario,
  warmUpServers,
} from './lib/scenarios.js';
import {
  cpuProfileFlags,
  freePort,
  peakRssMiB,
  startFlagsOf,
  startScriptNodeFlags,
  startServer,
  type RunningServer,
} from './lib/processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);

interface Row extends LoadResult {
  target: string;
  scenario: string;
  ratio?: number;
  /** Records delivered per second, for scenarios that answer many records at once. */
  recordsPerSecond?: number;
}

/** Head-to-head scenarios alternate between service and baseline in this many rounds each. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function load(server: RunningServer, s: Scenario, seconds: number): Promise<LoadResult> {
  return runLoad(server, { ...s, url: `${server.url}${s.path}`, durationSeconds: seconds });
}

function report(target: string, s: Scenario, result: LoadResult): void {
  process.stderr.write(`  ${target.padEnd(34)} ${s.name.padEnd(28)} ${result.requestsPerSecond.toFixed(0)} req/s\n`);
}

/**
 * Every scenario on the service; those with a baseline alternate with it, round by round
 * (baseline, service, baseline, ...), both servers up, so a change in the machine's speed
 * during the run (a shared machine) weighs on both sides of the ratio alike.
 */
async function measure(
  service: RunningServer,
  serviceTarget: string,
  baseline: RunningServer,
  baselineTarget: string,
  list: Scenario[],
): Promise<Row[]> {
  const rows: Row[] = [];
  const first = list[0];
  if (first) await warmUpServers([service], first);
  const firstAgainstBaseline = list.find((s) => s.baseline);
  if (firstAgainstBaseline) await warmUpServers([baseline], firstAgainstBaseline);
  for (const s of list) {
    await checkScenario(service, serviceTarget, s);
    if (!s.baseline) {
      const result = await load(service, s, DURATION);
      rows.push({ target: serviceTarget, scenario: s.name, ...result, ...recordRate(s, result) });
      report(serviceTarget, s, result);
      continue;
    }
    await checkScenario(baseline, baselineTarget, s);
    const ours: LoadResult[] = [];
    const theirs: LoadResult[] = [];
    const seconds = Math.max(2, Math.round(DURATION / ROUNDS));
    for (let round = 0; round < ROUNDS; round++) {
      theirs.push(await load(baseline, s, seconds));
      ours.push(await load(service, s, seconds));
    }
    const base = merge(theirs);
    const result = merge(ours);
    rows.push({
      target: serviceTarget,
      scenario: s.name,
      ...result,
      ...recordRate(s, result),
      ratio: result.requestsPerSecond / base.requestsPerSecond,
    });
    rows.push({ target: baselineTarget, scenario: s.name, ...base, ...recordRate(s, base) });
    report(serviceTarget, s, result);
    report(baselineTarget, s, base);
  }
  return rows;
}

function recordRate(s: Scenario, result: LoadResult): { recordsPerSecond?: number } {
  return s.records === undefined ? {} : { recordsPerSecond: result.requestsPerSecond * s.records };
}

/**
 * What the change feed's capture triggers cost a lead create: the same scenario with the lead
 * table's insert trigger disabled and enabled, in alternating rounds on the same server.
 */
async function feedTriggerCost(service: RunningServer, target: string, data: BenchData, s: Scenario): Promise<Row[]> {
  const db = new pg.Client({ connectionString: data.url });
  await db.connect();
  try {
    const off: LoadResult[] = [];
    const on: LoadResult[] = [];
    const seconds = Math.max(2, Math.round(DURATION / ROUNDS));
    for (let round = 0; round < ROUNDS; round++) {
      await db.query('ALTER TABLE leads DISABLE TRIGGER leads_changes_insert');
      off.push(await load(service, s, seconds));
      await db.query('ALTER TABLE leads ENABLE TRIGGER leads_changes_insert');
      on.push(await load(service, s, seconds));
    }
    const without = merge(off);
    const withTriggers = merge(on);
    report(`${target}, feed trigger off`, s, without);
    report(`${target}, feed trigger on`, s, withTriggers);
    return [
      { target: `${target}, feed trigger off`, scenario: s.name, ...without },
      {
        target: `${target}, feed trigger on`,
        scenario: s.name,
        ...withTriggers,
        ratio: withTriggers.requestsPerSecond / without.requestsPerSecond,
      },
    ];
  } finally {
    await db.query('ALTER TABLE leads ENABLE TRIGGER leads_changes_insert');
    await db.end();
  }
}

/** People page 1's body as sent (bytes read off the socket), plain and with gzip asked for. */
interface WireBytes {
  plain: number;
  gzip: number;
}
let wire: WireBytes | undefined;

async function pageOneOnTheWire(server: RunningServer, token: string, data: BenchData): Promise<WireBytes> {
  const bodyBytes = (encoding?: string) =>
    new Promise<number>((resolve, reject) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'x-enterprise-id': data.enterpriseId,
      };
      if (encoding) headers['accept-encoding'] = encoding;
      const req = httpGet(`${server.url}/api/v2/people?page=1`, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(bytes));
        res.on('error', reject);
      });
      req.on('error', reject);
    });
  return { plain: await bodyBytes(), gzip: await bodyBytes('gzip') };
}

/** Each measured process's own high-water mark of resident memory (VmHWM) over its whole run. */
const processPeaks: Record<string, number> = {};

/**
 * The service configurations a run measures (`BENCH_TARGETS`, comma-separated, in this order by
 * default: `in-process,redis`). `metrics` is the in-process one with Prometheus metrics on
 * (METRICS_PORT, scraped every 5 s as a Prometheus server would); tracing is off in all of them
 * (no OTEL_EXPORTER_OTLP_ENDPOINT: no OpenTelemetry module is loaded).
 */
const TARGETS = {
  'in-process': {
    target: 'service (in-process limit)',
    redis: false,
    metrics: false,
    previous: false,
    pageCache: true,
  },
  // The in-process one with PAGE_CACHE_MB=0 and RECORD_CACHE_MB=0: every list page and every
  // change feed page built from its rows.
  'no-page-cache': {
    target: 'service (in-process, page and record caches off)',
    redis: false,
    metrics: false,
    previous: false,
    pageCache: false,
  },
  redis: { target: 'service (Redis limit)', redis: true, metrics: false, previous: false, pageCache: true },
  metrics: {
    target: 'service (in-process, metrics on)',
    redis: false,
    metrics: true,
    previous: false,
    pageCache: true,
  },
  // Another build of the service (BENCH_PREVIOUS_MAIN: its dist/src/main.js, e.g. of the commit
  // before a change), in-process limit, for a before/after on the same machine in the same run.
  previous: {
    target: 'previous build (in-process limit)',
    redis: false,
    metrics: false,
    previous: true,
    pageCache: true,
  },
  // The same build with PAGE_CACHE_MB=0 and RECORD_CACHE_MB=0, beside `no-page-cache`.
  'previous-no-page-cache': {
    target: 'previous build (in-process, page and record caches off)',
    redis: false,
    metrics: false,
    previous: true,
    pageCache: false,
  },
} as const;
type TargetName = keyof typeof TARGETS;

function targets(): TargetName[] {
  const names = (process.env.BENCH_TARGETS ?? 'in-process,redis').split(',').map((n) => n.trim());
  for (const name of names) {
    if (!(name in TARGETS)) throw new Error(`BENCH_TARGETS: unknown ${name} (${Object.keys(TARGETS).join(', ')})`);
  }
  return names as TargetName[];
}

/** Scrapes the metrics listener every 5 s while the run lasts; the answers' total size. */
function scrapeEvery5s(url: string): { stop(): Promise<number> } {
  let bytes = 0;
  let scraping: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    scraping = fetch(url)
      .then((res) => res.text())
      .then((text) => void (bytes += text.length))
      .catch(() => undefined);
  }, 5_000);
  return {
    async stop() {
      clearInterval(timer);
      await scraping;
      return bytes;
    },
  };
}

/**
 * BENCH_CPU_PROFILE_DIR: each service run writes a V8 CPU profile (`--cpu-prof`) into a folder
 * of that directory named after its target, for `node dist/bench/profile-summary.js`.
 */
function profileFlags(name: TargetName): string[] {
  return cpuProfileFlags(process.env.BENCH_CPU_PROFILE_DIR, name);
}

/**
 * The baseline has no login route; it checks a token the service issued, as the service does.
 * It runs beside the service, started once per service run.
 */
async function serviceRun(data: BenchData, ids: SampleIds, name: TargetName): Promise<Row[]> {
  const { target, redis, metrics, previous, pageCache } = TARGETS[name];
  const metricsPort = metrics ? await freePort() : undefined;
  const main = previous ? process.env.BENCH_PREVIOUS_MAIN : join(ROOT, 'dist/src/main.js');
  if (!main) throw new Error('BENCH_TARGETS=previous needs BENCH_PREVIOUS_MAIN (the other build of dist/src/main.js)');
  const service = await startServer(
    target,
    main,
    {
      ...benchServiceEnv(data.url),
      ...(redis ? { REDIS_URL } : {}),
      ...(pageCache ? {} : { PAGE_CACHE_MB: '0', RECORD_CACHE_MB: '0' }),
      ...(metricsPort ? { METRICS_PORT: String(metricsPort) } : {}),
    },
    [...startFlagsOf(main), ...profileFlags(name)],
  );
  const scraper = metricsPort ? scrapeEvery5s(`http://127.0.0.1:${metricsPort}/metrics`) : undefined;
  const baselineTarget = `baseline (Fastify + pg), beside ${redis ? 'Redis' : 'in-process'} run`;
  try {
    const baseline = await startServer(baselineTarget, join(ROOT, 'dist/bench/baseline/server.js'), {
      DATABASE_URL: data.url,
      APP_KEY,
    });
    try {
      const token = await login(service);
      const pageOne = await fetch(`${service.url}/api/v2/people?page=1`, {
        headers: { authorization: `Bearer ${token}`, 'x-enterprise-id': data.enterpriseId },
      });
      const list = selected(scenarios(data, ids, token, pageOne.headers.get('etag') ?? ''));
      if (name === 'in-process') wire = await pageOneOnTheWire(service, token, data);
      const rows = await measure(service, target, baseline, baselineTarget, list);
      const leadCreate = list.find((s) => s.name === 'v2 lead create');
      if (leadCreate && name === 'in-process') rows.push(...(await feedTriggerCost(service, target, data, leadCreate)));
      processPeaks[target] = peakRssMiB(service.process.pid ?? 0);
      processPeaks[baselineTarget] = peakRssMiB(baseline.process.pid ?? 0);
      return rows;
    } finally {
      await baseline.stop();
    }
  } finally {
    const scraped = await scraper?.stop();
    await service.stop();
    if (scraped === 0) process.stderr.write(`  ${target}: the metrics listener answered no scrape\n`);
  }
}

/**
 * CPU time of one login's password check with the service's argon2id parameters, measured here
 * (a login spends it on libuv's thread pool; this process's CPU time counts that too).
 */
async function loginCpuMs(times = 20): Promise<number> {
  const hash = await hashPassword('bench-password');
  const before = process.cpuUsage();
  for (let i = 0; i < times; i++) {
    if (!(await verifyPassword(hash, 'bench-password'))) throw new Error('argon2 verify failed');
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / times;
}

function table(rows: Row[]): string {
  const head = [
    'target',
    'scenario',
    'req/s',
    'records/s',
    'p50 ms',
    'p99 ms',
    'p99/p50',
    'errors',
    'non-2xx',
    'peak RSS MiB',
    'CPU us/req',
    'vs baseline',
  ];
  const lines = rows.map((r) => [
    r.target,
    r.scenario,
    r.requestsPerSecond.toFixed(0),
    r.recordsPerSecond === undefined ? '' : r.recordsPerSecond.toFixed(0),
    String(r.p50),
    String(r.p99),
    r.p50 > 0 ? (r.p99 / r.p50).toFixed(2) : '',
    String(r.errors),
    String(r.non2xx),
    r.peakRssMiB.toFixed(0),
    r.cpuUsPerRequest.toFixed(0),
    r.ratio === undefined ? '' : r.ratio.toFixed(2),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...lines.map(fmt)].join('\n');
}

async function main(): Promise<void> {
  const key = parseAppKey(APP_KEY);
  if (!key) throw new Error('bench APP_KEY is malformed');
  const cipher = new FieldCipher([key]);
  process.stderr.write('Preparing the bench database...\n');
  const data = await prepareBenchDatabase(DATABASE_URL, cipher);
  process.stderr.write(
    `Running scenarios (${DURATION} s each, ${CONNECTIONS} connections; against the baseline in ${ROUNDS} alternating rounds)...\n`,
  );
  const loginCpu = await loginCpuMs();
  process.stderr.write(`One login's argon2id check: ${loginCpu.toFixed(1)} ms of CPU\n`);
  const rows: Row[] = [];
  const ids = await sampleIds(data);
  for (const name of targets()) rows.push(...(await serviceRun(data, ids, name)));
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(`One login's argon2id password check: ${loginCpu.toFixed(1)} ms of CPU\n`);
  const revalidated = rows.find(
    (r) => r.scenario === 'v2 people page 1, revalidated (304)' && r.target.includes('in-process'),
  );
  const full = rows.find((r) => r.scenario === 'v2 people page 1' && r.target === TARGETS['in-process'].target);
  if (revalidated && full) {
    process.stdout.write(
      `People page 1 revalidated (304) vs full (200, page kept), in-process: ${(revalidated.requestsPerSecond / full.requestsPerSecond).toFixed(1)}x the req/s\n`,
    );
  }
  const built = rows.find((r) => r.scenario === 'v2 people page 1' && r.target === TARGETS['no-page-cache'].target);
  if (revalidated && built) {
    process.stdout.write(
      `People page 1 revalidated (304) vs full (200, page built from its rows), in-process: ${(revalidated.requestsPerSecond / built.requestsPerSecond).toFixed(1)}x the req/s\n`,
    );
  }
  if (wire) {
    process.stdout.write(
      `People page 1 body on the wire: ${wire.plain} bytes plain, ${wire.gzip} bytes with gzip (${((100 * wire.gzip) / wire.plain).toFixed(1)}%)\n`,
    );
  }
  for (const [target, peak] of Object.entries(processPeaks)) {
    process.stdout.write(`Peak RSS over the whole run (VmHWM), ${target}: ${peak.toFixed(0)} MiB\n`);
  }

  // A run of uncommitted changes is named after the commit it started from, marked dirty.
  const commit = execSync('git describe --always --dirty --exclude "*"', { cwd: ROOT }).toString().trim();
  const date = new Date().toISOString();
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  // A second run of the same commit on the same day gets a number, instead of replacing the first.
  const name = `${date.slice(0, 10)}-${commit}`;
  let file = join(ROOT, 'bench/results', `${name}.json`);
  for (let n = 2; existsSync(file); n++) file = join(ROOT, 'bench/results', `${name}-${n}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date, commit, machine, durationSeconds: DURATION, rounds: ROUNDS, connections: CONNECTIONS, targets: targets(), nodeFlags: startScriptNodeFlags(ROOT), loginCpuMs: loginCpu, rows, processPeakRssMiB: processPeaks }, null, 2)}\n`,
  );
  process.stdout.write(`Results written to ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
