import { execSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { FieldCipher } from '../src/common/crypto/field-cipher.js';
import { parseAppKey } from '../src/config/app-key.js';
import { BENCH_DOCUMENT, BENCH_USER, prepareBenchDatabase, type BenchData } from './lib/bench-database.js';
import { runLoad, type LoadOptions, type LoadResult } from './lib/load.js';
import { peakRssMiB, startServer, type RunningServer } from './lib/processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = 50;
const APP_KEY = `base64:${Buffer.alloc(32, 3).toString('base64')}`;
const WEBHOOK_SECRET = 'bench-webhook-secret';

interface Row extends LoadResult {
  target: string;
  scenario: string;
  ratio?: number;
}

type Scenario = { name: string; baseline?: boolean } & Omit<LoadOptions, 'url' | 'durationSeconds'> & { path: string };

function scenarios(data: BenchData, token: string): Scenario[] {
  const v2 = { authorization: `Bearer ${token}`, 'x-enterprise-id': data.enterpriseId, accept: 'application/json' };
  const v1 = { authorization: `Bearer ${token}`, enterpriseid: data.enterpriseId, accept: 'application/json' };
  const webhookBody = JSON.stringify({ event: 'document.viewed', data: { documentId: BENCH_DOCUMENT } });
  return [
    { name: 'v2 people page 1', baseline: true, path: '/api/v2/people?page=1', headers: v2, connections: CONNECTIONS },
    { name: 'v1 people page 1', path: '/api/v1/people?page=1', headers: v1, connections: CONNECTIONS },
    {
      name: `v2 people last page (${data.lastPage})`,
      path: `/api/v2/people?page=${data.lastPage}`,
      headers: v2,
      connections: CONNECTIONS,
    },
    {
      name: 'v2 lead retrieve',
      baseline: true,
      path: `/api/v2/leads/${data.leadId}`,
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

async function login(server: RunningServer): Promise<string> {
  const res = await fetch(`${server.url}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(BENCH_USER),
  });
  if (!res.ok) throw new Error(`bench login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function measure(server: RunningServer, target: string, list: Scenario[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const s of list) {
    const check = await fetch(`${server.url}${s.path}`, {
      method: s.method ?? 'GET',
      headers: s.headers,
      body: s.body,
    });
    if (check.status >= 300) throw new Error(`${target} ${s.name}: ${check.status} ${await check.text()}`);
    const result = await runLoad(server, { ...s, url: `${server.url}${s.path}`, durationSeconds: DURATION });
    rows.push({ target, scenario: s.name, ...result });
    process.stderr.write(`  ${target.padEnd(26)} ${s.name.padEnd(28)} ${result.requestsPerSecond.toFixed(0)} req/s\n`);
  }
  return rows;
}

/** Each measured process's own high-water mark of resident memory (VmHWM) over its whole run. */
const processPeaks: Record<string, number> = {};

async function serviceRun(data: BenchData, target: string, redis: boolean): Promise<{ rows: Row[]; token: string }> {
  const server = await startServer(target, join(ROOT, 'dist/src/main.js'), {
    DATABASE_URL: data.url,
    APP_KEY,
    RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
    MIGRATIONS_RUN: 'false',
    SIGNPROVIDER_A_SECRET: WEBHOOK_SECRET,
    ...(redis ? { REDIS_URL } : {}),
  });
  try {
    const token = await login(server);
    const rows = await measure(server, target, scenarios(data, token));
    processPeaks[target] = peakRssMiB(server.process.pid ?? 0);
    return { rows, token };
  } finally {
    await server.stop();
  }
}

/** The baseline has no login route; it checks a token the service issued, as the service does. */
async function baselineRun(data: BenchData, token: string): Promise<Row[]> {
  const target = 'baseline (Fastify + pg)';
  const server = await startServer(target, join(ROOT, 'dist/bench/baseline/server.js'), {
    DATABASE_URL: data.url,
    APP_KEY,
  });
  try {
    const rows = await measure(
      server,
      target,
      scenarios(data, token).filter((s) => s.baseline),
    );
    processPeaks[target] = peakRssMiB(server.process.pid ?? 0);
    return rows;
  } finally {
    await server.stop();
  }
}

function table(rows: Row[]): string {
  const head = ['target', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'peak RSS MiB', 'vs baseline'];
  const lines = rows.map((r) => [
    r.target,
    r.scenario,
    r.requestsPerSecond.toFixed(0),
    String(r.p50),
    String(r.p99),
    String(r.errors),
    String(r.non2xx),
    r.peakRssMiB.toFixed(0),
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
  process.stderr.write(`Running scenarios (${DURATION} s each, ${CONNECTIONS} connections)...\n`);
  const memory = await serviceRun(data, 'service (in-process limit)', false);
  const redis = await serviceRun(data, 'service (Redis limit)', true);
  const rows = [...memory.rows, ...redis.rows, ...(await baselineRun(data, memory.token))];
  for (const row of rows) {
    const base = rows.find((b) => b.target.startsWith('baseline') && b.scenario === row.scenario);
    if (base && !row.target.startsWith('baseline')) row.ratio = row.requestsPerSecond / base.requestsPerSecond;
  }
  process.stdout.write(`${table(rows)}\n`);
  for (const [target, peak] of Object.entries(processPeaks)) {
    process.stdout.write(`Peak RSS over the whole run (VmHWM), ${target}: ${peak.toFixed(0)} MiB\n`);
  }

  const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
  const date = new Date().toISOString();
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: +(totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
  };
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const file = join(ROOT, 'bench/results', `${date.slice(0, 10)}-${commit}.json`);
  writeFileSync(
    file,
    `${JSON.stringify({ date, commit, machine, durationSeconds: DURATION, connections: CONNECTIONS, rows, processPeakRssMiB: processPeaks }, null, 2)}\n`,
  );
  process.stdout.write(`Results written to ${file}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
