/**
 * `npm run bench:webhooks-api`: are the API's own figures any worse while outbound webhooks are
 * being delivered? Against the real service (dist/src/main.js, started as `npm start` does) on a
 * fresh PostgreSQL database (`fi_bench_webhooks_api`, BENCH_WEBHOOKS_API_DATABASE), with one
 * endpoint (types: lead) on a receiver in a process of its own answering 204 at once.
 *
 * First, drain: BENCH_DRAIN leads written in SQL and delivered with nothing else running, for the
 * delivery rate and the service's CPU time per delivery. Then two scenarios, each after an
 * unmeasured warm-up, in rounds of four phases, deliveries off, on, on, off (ABBA, so a drift of
 * the machine's load over a round weighs on both settings alike), BENCH_ROUNDS rounds of
 * BENCH_ROUND_SECONDS each, autocannon in its own process at BENCH_CONNECTIONS connections:
 * 1. lead creates (`POST /api/v2/leads`): every create is an event to deliver when deliveries
 *    are on;
 * 2. lead retrieves (`GET /api/v2/leads/{id}`) while leads are written in SQL at
 *    BENCH_BACKGROUND_WRITES_PER_SECOND (in both settings), so that there is something to deliver.
 * "Off" is the endpoint disabled (the worker still polls, as it does in any service without
 * endpoints); "on" is the endpoint enabled and replayed from the feed's current cursor, so each
 * phase delivers its own changes rather than the backlog of the phase before.
 *
 * Prints each phase (req/s, p50, p99, deliveries/s) and per scenario the on/off ratios of
 * throughput, p50 and p99 over every request of the setting, with the lowest and highest of the
 * rounds' own ratios (each round's two "on" phases against its two "off" ones), and writes
 * bench/results/webhooks-api-<date>-<commit>.json.
 *
 * BENCH_CONTROL=true runs the same rounds with the endpoint disabled in every phase: the "on/off"
 * ratios of that run are what two identical settings differ by on this machine, the yardstick
 * for a real run's ratios.
 */
import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { hashPassword } from '../src/auth/password-hasher.js';
import { openDataSource } from '../src/data-source.js';
import { runMigrations } from '../src/database/migration-runner.js';
import { selectRows } from '../src/database/sql.js';
import { mergeLatencies, runLoad, type LoadOptions, type LoadResult } from './lib/load.js';
import {
  cpuProfileFlags,
  cpuSplitMs,
  startScriptNodeFlags,
  startServer,
  type RunningServer,
  serviceSettingsFromBench,
} from './lib/processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_WEBHOOKS_API_DATABASE ?? 'fi_bench_webhooks_api';
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BACKGROUND_WRITES_PER_SECOND = Number(process.env.BENCH_BACKGROUND_WRITES_PER_SECOND ?? 50);
const DRAIN = Number(process.env.BENCH_DRAIN ?? 3_000);
/** A folder: the service writes a V8 CPU profile there (read it with dist/bench/profile-summary.js). */
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const APP_KEY = `base64:${Buffer.alloc(32, 7).toString('base64')}`;
const USER = { email: 'hooks-api@example.com', password: 'hooks-api-password' };
/** The service's settings a run may compare (BENCH_<NAME>), passed through when set. */
const SERVICE_ENV = serviceSettingsFromBench([
  'DATABASE_POOL_MAX',
  'WEBHOOK_POLL_INTERVAL_MS',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_YIELD_REQUESTS',
  'WEBHOOK_YIELD_MAX_MS',
  'WEB_CONCURRENCY',
]);
/**
 * `inline` (default): the API process delivers, as every process does by default. `separate`:
 * the API process runs with WEBHOOK_DELIVERY=false and a second service process on the same
 * database delivers, at a lower CPU priority (nice 10), as an operator may run it.
 */
const DELIVERY = process.env.BENCH_DELIVERY === 'separate' ? 'separate' : 'inline';
/** Only the parts named (`drain,creates,retrieves`); all by default. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'drain,creates,retrieves').split(',').map((p) => p.trim()));
/** Deliveries off in the "on" phases too (an A/A run: how far identical settings differ). */
const CONTROL = process.env.BENCH_CONTROL === 'true';
/** A round's phases: deliveries off, on, on, off. */
const ABBA = [false, true, true, false] as const;

interface Phase {
  round: number;
  deliveries: boolean;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  errors: number;
  non2xx: number;
  deliveredPerSecond: number;
  latencies: string;
}

interface Setting {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  deliveredPerSecond: number;
}

interface Ratios {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
}

interface ScenarioResult {
  phases: Omit<Phase, 'latencies'>[];
  off: Setting;
  on: Setting;
  ratios: Ratios;
  /** Each round's own on/off ratios, lowest and highest of the rounds. */
  roundRatios: { lowest: Ratios; highest: Ratios };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Fixture {
  url: string;
  enterpriseId: string;
  leadId: string;
}

async function prepare(): Promise<Fixture> {
  const admin = new pg.Client({ connectionString: SERVER_URL });
  await admin.connect();
  if (!/^[a-z_][a-z0-9_]*$/.test(DATABASE)) throw new Error('BENCH_WEBHOOKS_API_DATABASE must be a plain name');
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const url = new URL(SERVER_URL);
  url.pathname = `/${DATABASE}`;
  const dataSource = await openDataSource({ url: url.toString(), poolMax: 2 });
  try {
    await runMigrations(dataSource);
    const [enterprise] = await selectRows<{ id: string }>(
      dataSource,
      `INSERT INTO enterprises (name) VALUES ('Hooks API Finance') RETURNING id`,
    );
    const enterpriseId = enterprise?.id ?? '';
    const [user] = await selectRows<{ id: string }>(
      dataSource,
      `INSERT INTO users (name, email, password_hash) VALUES ('Hooks API Broker', $1, $2) RETURNING id`,
      [USER.email, await hashPassword(USER.password)],
    );
    await dataSource.query(`INSERT INTO memberships (user_id, enterprise_id) VALUES ($1, $2)`, [
      user?.id,
      enterpriseId,
    ]);
    const [lead] = await selectRows<{ id: string }>(
      dataSource,
      `INSERT INTO leads (enterprise_id, title, person_name, finance_amount)
       SELECT $1, 'Car loan ' || i, 'Jane Citizen', to_jsonb(20000 + i) FROM generate_series(1, 1000) i RETURNING id`,
      [enterpriseId],
    );
    await dataSource.query('VACUUM ANALYZE');
    return { url: url.toString(), enterpriseId, leadId: lead?.id ?? '' };
  } finally {
    await dataSource.destroy();
  }
}

/** The receiver (bench/lib/webhook-receiver.js) in a process of its own; its base URL once listening. */
async function startReceiver(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'lib/webhook-receiver.js')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout ?? child, 'data')) as [Buffer];
  const { port } = JSON.parse(line.toString()) as { port: number };
  return { child, base: `http://127.0.0.1:${port}` };
}

async function received(base: string): Promise<number> {
  const answer = await fetch(`${base}/count`);
  return ((await answer.json()) as { received: number }).received;
}

async function api(
  server: RunningServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<unknown> {
  const answer = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** Leads written in SQL at a steady rate until stopped (one statement at a time). */
function backgroundWriter(url: string, enterpriseId: string, perSecond: number): { stop(): Promise<number> } {
  const client = new pg.Client({ connectionString: url });
  let running = perSecond > 0;
  let written = 0;
  const done = (async () => {
    if (!running) return;
    await client.connect();
    const started = performance.now();
    while (running) {
      await client.query(`INSERT INTO leads (enterprise_id, title, person_name) VALUES ($1, 'Background', 'Kim')`, [
        enterpriseId,
      ]);
      written += 1;
      const wait = started + (written * 1000) / perSecond - performance.now();
      if (wait > 0) await sleep(wait);
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return written;
    },
  };
}

function ratiosOf(on: Setting, off: Setting): Ratios {
  return {
    requestsPerSecond: on.requestsPerSecond / off.requestsPerSecond,
    p50: on.p50 / off.p50,
    p99: on.p99 / off.p99,
    cpuUsPerRequest: on.cpuUsPerRequest / off.cpuUsPerRequest,
  };
}

/** The lowest and the highest of each ratio over the rounds, each round's on against its off. */
function roundRatiosOf(phases: readonly Phase[]): ScenarioResult['roundRatios'] {
  const rounds = [...new Set(phases.map((p) => p.round))].map((round) => {
    const of = phases.filter((p) => p.round === round);
    return ratiosOf(settingOf(of.filter((p) => p.deliveries)), settingOf(of.filter((p) => !p.deliveries)));
  });
  const pick = (choose: (...n: number[]) => number): Ratios => ({
    requestsPerSecond: choose(...rounds.map((r) => r.requestsPerSecond)),
    p50: choose(...rounds.map((r) => r.p50)),
    p99: choose(...rounds.map((r) => r.p99)),
    cpuUsPerRequest: choose(...rounds.map((r) => r.cpuUsPerRequest)),
  });
  return { lowest: pick(Math.min), highest: pick(Math.max) };
}

function settingOf(phases: readonly Phase[]): Setting {
  const mean = (pick: (p: Phase) => number) => phases.reduce((sum, p) => sum + pick(p), 0) / phases.length;
  const merged = mergeLatencies(phases.map((p) => p.latencies));
  return {
    requestsPerSecond: mean((p) => p.requestsPerSecond),
    p50: merged.p50,
    p99: merged.p99,
    cpuUsPerRequest: mean((p) => p.cpuUsPerRequest),
    deliveredPerSecond: mean((p) => p.deliveredPerSecond),
  };
}

async function main(): Promise<void> {
  const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
  const dirty = execSync('git status --porcelain --untracked-files=no', { cwd: ROOT }).toString().trim() !== '';
  const loadBefore = loadavg().map((n) => n.toFixed(2));
  process.stderr.write(`load average before: ${loadBefore.join(' ')}\n`);
  const fixture = await prepare();
  const receiver = await startReceiver();
  const serviceEnv = {
    DATABASE_URL: fixture.url,
    APP_KEY,
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    ...SERVICE_ENV,
  };
  const flags = [...startScriptNodeFlags(ROOT), ...cpuProfileFlags(PROFILE_DIR)];
  let deliverer: RunningServer | undefined;
  const server = await (async () => {
    if (DELIVERY === 'separate') {
      deliverer = await startServer('deliverer', join(ROOT, 'dist/src/main.js'), serviceEnv, flags);
      setPriority(deliverer.process.pid ?? 0, 10);
    }
    return startServer(
      'service',
      join(ROOT, 'dist/src/main.js'),
      { ...serviceEnv, ...(DELIVERY === 'separate' ? { WEBHOOK_DELIVERY: 'false' } : {}) },
      flags,
    );
  })().catch(async (error: unknown) => {
    await deliverer?.stop();
    receiver.child.kill('SIGTERM');
    throw error;
  });
  /** The process that delivers. */
  const delivering = deliverer ?? server;
  const results: Record<string, unknown> = {
    commit: dirty ? `${commit}-dirty` : commit,
    loadBefore,
    service: SERVICE_ENV,
    delivery: DELIVERY,
    control: CONTROL,
    roundSeconds: ROUND_SECONDS,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    backgroundWritesPerSecond: BACKGROUND_WRITES_PER_SECOND,
  };
  try {
    const login = (await api(server, 'POST', '/api/v2/login', { accept: 'application/json' }, USER)) as {
      access_token: string;
    };
    const headers = {
      authorization: `Bearer ${login.access_token}`,
      'x-enterprise-id': fixture.enterpriseId,
      accept: 'application/json',
    };
    const created = (await api(server, 'POST', '/api/v2/webhook-endpoints', headers, {
      url: `${receiver.base}/hooks`,
      types: ['lead'],
    })) as { data: { id: string } };
    const endpoint = `/api/v2/webhook-endpoints/${created.data.id}`;
    const deliveries = async (on: boolean) => {
      await api(server, 'PATCH', endpoint, headers, { enabled: on && !CONTROL });
      if (!on || CONTROL) return;
      const cursor = (await api(server, 'GET', '/api/v2/changes/cursor?types=lead', headers)) as {
        data: { cursor: string };
      };
      await api(server, 'POST', `${endpoint}/replay`, headers, { cursor: cursor.data.cursor });
    };

    const scenario = async (name: string, load: LoadOptions, background: boolean): Promise<ScenarioResult> => {
      const phases: Phase[] = [];
      // Not measured: the service's code and the tables warm up before the first round.
      await deliveries(false);
      await runLoad(server, load);
      for (let round = 0; round < ROUNDS; round++) {
        for (const on of ABBA) {
          await deliveries(on);
          // What the phase before left in flight settles first.
          await sleep(1_000);
          const writer = background
            ? backgroundWriter(fixture.url, fixture.enterpriseId, BACKGROUND_WRITES_PER_SECOND)
            : undefined;
          const before = await received(receiver.base);
          const started = performance.now();
          const result: LoadResult = await runLoad(server, load);
          const seconds = (performance.now() - started) / 1000;
          const delivered = (await received(receiver.base)) - before;
          await writer?.stop();
          const phase: Phase = {
            round,
            deliveries: on,
            requestsPerSecond: result.requestsPerSecond,
            p50: result.p50,
            p99: result.p99,
            cpuUsPerRequest: result.cpuUsPerRequest,
            errors: result.errors,
            non2xx: result.non2xx,
            deliveredPerSecond: delivered / seconds,
            latencies: result.latencies,
          };
          phases.push(phase);
          process.stderr.write(
            `${name} round ${round + 1} deliveries ${on ? 'on ' : 'off'}: ${phase.requestsPerSecond.toFixed(0)} req/s, ` +
              `p50 ${phase.p50} ms, p99 ${phase.p99} ms, ${phase.deliveredPerSecond.toFixed(0)} deliveries/s, ` +
              `load ${loadavg()[0]?.toFixed(2)}\n`,
          );
        }
      }
      const off = settingOf(phases.filter((p) => !p.deliveries));
      const on = settingOf(phases.filter((p) => p.deliveries));
      return {
        phases: phases.map(({ latencies: _latencies, ...rest }) => rest),
        off,
        on,
        ratios: ratiosOf(on, off),
        roundRatios: roundRatiosOf(phases),
      };
    };

    // 0. The service's CPU per delivery, nothing else running: a backlog written in SQL, drained.
    if (PARTS.has('drain') && !CONTROL) await drain();
    async function drain(): Promise<void> {
      await deliveries(true);
      const before = await received(receiver.base);
      const cpuBefore = cpuSplitMs(delivering.process.pid ?? 0);
      const drainStarted = performance.now();
      const writer = new pg.Client({ connectionString: fixture.url });
      await writer.connect();
      await writer.query(
        `INSERT INTO leads (enterprise_id, title, person_name) SELECT $1, 'Drain ' || i, 'Kim' FROM generate_series(1, $2::int) i`,
        [fixture.enterpriseId, DRAIN],
      );
      await writer.end();
      while ((await received(receiver.base)) - before < DRAIN && performance.now() - drainStarted < 120_000)
        await sleep(20);
      const drainSeconds = (performance.now() - drainStarted) / 1000;
      const drained = (await received(receiver.base)) - before;
      const cpuAfter = cpuSplitMs(delivering.process.pid ?? 0);
      const per = Math.max(1, drained);
      results.drain = {
        deliveries: drained,
        seconds: drainSeconds,
        deliveriesPerSecond: drained / drainSeconds,
        serviceCpuUsPerDelivery: ((cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system) * 1000) / per,
        // Kernel time: sending on loopback also runs the receiving side's TCP in the sender's time.
        serviceSystemCpuUsPerDelivery: ((cpuAfter.system - cpuBefore.system) * 1000) / per,
      };
      process.stderr.write(`drain: ${JSON.stringify(results.drain)}\n`);
    }

    const common = { connections: CONNECTIONS, durationSeconds: ROUND_SECONDS, headers };
    if (PARTS.has('creates'))
      results.leadCreates = await scenario(
        'creates',
        {
          ...common,
          url: `${server.url}/api/v2/leads`,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ title: 'Bench lead', person_name: 'Kim' }),
        },
        false,
      );
    if (PARTS.has('retrieves'))
      results.leadRetrieves = await scenario(
        'retrieves',
        { ...common, url: `${server.url}/api/v2/leads/${fixture.leadId}`, method: 'GET' },
        true,
      );
  } finally {
    await server.stop();
    await deliverer?.stop();
    receiver.child.kill('SIGTERM');
  }
  results.loadAfter = loadavg().map((n) => n.toFixed(2));
  const out = join(ROOT, 'bench/results');
  mkdirSync(out, { recursive: true });
  const file = join(
    out,
    `webhooks-api-${DELIVERY === 'separate' ? 'separate-' : ''}${CONTROL ? 'control-' : ''}${new Date().toISOString().slice(0, 10)}-${String(results.commit)}.json`,
  );
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  print(results);
  process.stderr.write(`written ${file}\n`);
}

function print(results: Record<string, unknown>): void {
  const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);
  const drain = results.drain as
    | {
        deliveries: number;
        deliveriesPerSecond: number;
        serviceCpuUsPerDelivery: number;
        serviceSystemCpuUsPerDelivery: number;
      }
    | undefined;
  const lines = [
    `commit ${String(results.commit)}; service ${JSON.stringify(results.service)}; delivery ${String(results.delivery)}${results.control ? ' (control: the endpoint disabled in every phase)' : ''}; load average before ${(results.loadBefore as string[]).join(' ')}, after ${(results.loadAfter as string[]).join(' ')}`,
    '| scenario | deliveries off | deliveries on | on/off |',
    '|---|---|---|---|',
  ];
  if (drain) {
    lines.unshift(
      `backlog of ${drain.deliveries} drained at ${f(drain.deliveriesPerSecond)} deliveries/s, CPU of the delivering process ${f(drain.serviceCpuUsPerDelivery)} µs per delivery (${f(drain.serviceSystemCpuUsPerDelivery)} of it in the kernel)`,
    );
  }
  const setting = (s: Setting) =>
    `${f(s.requestsPerSecond)} req/s, p50 ${f(s.p50)} ms, p99 ${f(s.p99)} ms, ${f(s.cpuUsPerRequest)} µs CPU/req, ${f(s.deliveredPerSecond)} deliveries/s`;
  for (const [name, key] of [
    ['lead creates', 'leadCreates'],
    ['lead retrieves (+ SQL writes)', 'leadRetrieves'],
  ] as const) {
    const r = results[key] as ScenarioResult | undefined;
    if (!r) continue;
    const ratios = (x: Ratios) =>
      `req/s ${x.requestsPerSecond.toFixed(2)}, p50 ${x.p50.toFixed(2)}, p99 ${x.p99.toFixed(2)}, CPU ${x.cpuUsPerRequest.toFixed(2)}`;
    lines.push(
      `| ${name} | ${setting(r.off)} | ${setting(r.on)} | ${ratios(r.ratios)} (rounds: lowest ${ratios(r.roundRatios.lowest)}; highest ${ratios(r.roundRatios.highest)}) |`,
    );
  }
  console.log(lines.join('\n'));
}

await main();
