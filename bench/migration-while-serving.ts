import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { databaseUrlOf, freshDatabase } from './lib/fresh-database.js';
import { benchPerson, ENTERPRISE } from './lib/import-rows.js';
import { buildRelease, nodeOf } from './lib/release-builds.js';

/**
 * `npm run bench:migration [REF]`: an upgrade as an operator runs it, on a large database. REF's
 * release (default: the commit before the newest migration) migrates a fresh database and
 * imports BENCH_PEOPLE (1,000,000) people with their rows (every BENCH_NO_ENTERPRISE_EVERY-th,
 * default 100th, of no enterprise) and BENCH_APPLICATIONS (0) applications, each with a quote and
 * a signing document, then serves while this tree's
 * `migrate` runs; clients read people pages and people and write and read leads meanwhile. It
 * prints how long `migrate` took, the requests answered meanwhile (any 5xx), their slowest
 * answers, the most sessions seen waiting for a lock (sampled every 50 ms) and the size of the
 * tables before and after.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_MIGRATION_DATABASE ?? 'fi_bench_migration';
const PEOPLE = Number(process.env.BENCH_PEOPLE ?? 1_000_000);
const APPLICATIONS = Number(process.env.BENCH_APPLICATIONS ?? 0);
/** Every Nth person is of no enterprise (0: none), as the import format allows. */
const NO_ENTERPRISE_EVERY = Number(process.env.BENCH_NO_ENTERPRISE_EVERY ?? 100);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 6);
const WORK = process.env.BENCH_IMPORT_DIR ?? join(ROOT, 'bench/results/import-files');
const APP_KEY = `base64:${Buffer.alloc(32, 3).toString('base64')}`;
const USER = { id: '0e000000-0000-4000-8000-0000000000bb', email: 'migration@example.com', password: 'migration-pw' };
const PORT = Number(process.env.BENCH_PORT ?? 3917);
const TABLES = [
  'people',
  'organisations',
  'phone_numbers',
  'emails',
  'addresses',
  'financials',
  'webhook_deliveries',
  'applications',
  'quotes',
  'signing_documents',
];

/** A stable UUID per (kind, counter), apart from the people's. */
function benchId(kind: number, n: number): string {
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-9000-${n.toString(16).padStart(12, '0')}`;
}

/** The i-th application, its quote and its signing document, as import-format records. */
function benchApplication(i: number): { application: object; quote: object; document: object } {
  const id = benchId(0x51, i);
  return {
    application: { id, enterprise_id: ENTERPRISE, settlement_date_actual: null, contract_number: `C-${i}` },
    quote: {
      id: benchId(0x52, i),
      enterprise_id: ENTERPRISE,
      application_id: id,
      is_active: true,
      calculation: { asset_type: 'Motor Vehicle', financier: 'Example Bank', total_finance_amount: '45000.00' },
    },
    document: {
      id: benchId(0x53, i),
      enterprise_id: ENTERPRISE,
      provider: 'a',
      external_id: `doc-${i}`,
      status: 'sent',
    },
  };
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
}

/** The commit before the newest migration file was added: the release an operator upgrades from. */
function defaultRef(): string {
  const newest = git(['ls-files', 'migrations']).split('\n').sort().at(-1) ?? '';
  return git(['log', '--diff-filter=A', '--format=%H', '-1', '--', newest]) + '^';
}

async function generate(file: string): Promise<void> {
  if (existsSync(file)) return;
  mkdirSync(WORK, { recursive: true });
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`{"enterprises":[{"id":"${ENTERPRISE}","name":"Bench Finance","is_active":true}],\n`);
  await write(
    `"users":[${JSON.stringify({ ...USER, name: 'Mia Migration', is_active: true, enterprise_ids: [ENTERPRISE] })}],\n"people":[\n`,
  );
  for (let i = 0; i < PEOPLE; i++) {
    const person = benchPerson(i);
    const record =
      NO_ENTERPRISE_EVERY > 0 && i % NO_ENTERPRISE_EVERY === 1 ? { ...person, enterprise_id: null } : person;
    await write(`${i === 0 ? '' : ',\n'}${JSON.stringify(record)}`);
  }
  for (const [section, part] of [
    ['applications', 'application'],
    ['quotes', 'quote'],
    ['signing_documents', 'document'],
  ] as const) {
    await write(`\n],"${section}":[\n`);
    for (let i = 0; i < APPLICATIONS; i++)
      await write(`${i === 0 ? '' : ',\n'}${JSON.stringify(benchApplication(i)[part])}`);
  }
  await write('\n]}\n');
  out.end();
  await once(out, 'finish');
}

async function sizes(url: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ name: string; bytes: string }>(
    `SELECT relname AS name, pg_total_relation_size(oid)::text AS bytes FROM pg_class
      WHERE relname = ANY($1) AND relkind = 'r'`,
    [TABLES],
  );
  await client.end();
  return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
}

interface Answer {
  status: number;
  ms: number;
}

async function main(): Promise<void> {
  const ref = process.argv[2] ?? defaultRef();
  const sha = git(['rev-parse', `${ref}^{commit}`]);
  const dir = buildRelease(sha);
  const node = nodeOf(dir);
  const orphans = NO_ENTERPRISE_EVERY > 0 ? `-no-enterprise-every-${NO_ENTERPRISE_EVERY}` : '';
  const file = join(WORK, `migration-people-${PEOPLE}-applications-${APPLICATIONS}${orphans}.json`);
  await generate(file);
  // BENCH_MIGRATION_LOADED=true: the database REF loaded last time is used again, as it is.
  const reuse = process.env.BENCH_MIGRATION_LOADED === 'true';
  const url = reuse ? databaseUrlOf(SERVER_URL, DATABASE) : await freshDatabase(SERVER_URL, DATABASE);
  const env = { PATH: process.env.PATH ?? '', TZ: 'UTC', DATABASE_URL: url, APP_KEY };
  if (!reuse) {
    const started = performance.now();
    execFileSync(node, [join(dir, 'dist/src/cli/main.js'), 'migrate'], { env, stdio: 'inherit' });
    execFileSync(node, [join(dir, 'dist/src/cli/main.js'), 'import', file], { env, stdio: 'inherit' });
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    process.stderr.write(`${sha.slice(0, 7)} loaded ${PEOPLE} people in ${seconds} s\n`);
  }
  const before = await sizes(url);

  const service: ChildProcess = spawn(node, [join(dir, 'dist/src/main.js')], {
    env: { ...env, PORT: String(PORT), HOST: '127.0.0.1', RATE_LIMIT_PER_MINUTE: '1000000', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${PORT}`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${base}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    if (service.exitCode !== null || i > 600) throw new Error('the previous release did not start');
    await new Promise((done) => setTimeout(done, 100));
  }
  const login = await fetch(`${base}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: USER.email, password: USER.password }),
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const headers = { authorization: `Bearer ${token}`, 'x-enterprise-id': ENTERPRISE, accept: 'application/json' };

  let running = true;
  let migrating = false;
  const during: Answer[] = [];
  const request = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const at = performance.now();
    const res = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
    await res.arrayBuffer();
    if (migrating) during.push({ status: res.status, ms: performance.now() - at });
    return res;
  };
  const worker = async (index: number): Promise<void> => {
    for (let i = 0; running; i++) {
      await request(`/api/v2/people?page=${1 + ((index + i) % 1000)}`);
      await request(`/api/v2/people/${benchPerson((index * 997 + i * 7919) % PEOPLE).id}`);
      const created = await request('/api/v2/leads', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: `migration ${index}-${i}`, person_name: 'Pat' }),
      });
      if (created.status === 201) await request(`/api/v2/leads`);
      if (APPLICATIONS > 0) await request(`/api/v2/applications?page=${1 + ((index + i) % 100)}`);
    }
  };
  const load = Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));

  const sampler = new pg.Client({ connectionString: url });
  await sampler.connect();
  let peakWaiting = 0;
  const sampling = (async () => {
    while (running) {
      const { rows } = await sampler.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name <> 'finance-intake-cli'`,
      );
      peakWaiting = Math.max(peakWaiting, rows[0]?.waiting ?? 0);
      await new Promise((done) => setTimeout(done, 50));
    }
  })();

  await new Promise((done) => setTimeout(done, 2_000));
  migrating = true;
  const migrationStart = performance.now();
  const migrate = spawn(process.execPath, [join(ROOT, 'dist/src/cli/main.js'), 'migrate'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  migrate.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  migrate.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(migrate, 'exit')) as [number];
  const seconds = (performance.now() - migrationStart) / 1000;
  migrating = false;
  running = false;
  await load;
  await sampling;
  await sampler.end();
  service.kill('SIGTERM');
  await once(service, 'exit');
  const after = await sizes(url);

  const times = during.map((a) => a.ms).sort((a, b) => a - b);
  const at = (q: number): number => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  const failed = during.filter((a) => a.status >= 500).length;
  const load1 = (await import('node:os')).loadavg()[0]?.toFixed(2);
  console.log(
    `migrate (exit ${code}) took ${seconds.toFixed(1)} s on ${PEOPLE.toLocaleString('en')} people and ` +
      `${APPLICATIONS.toLocaleString('en')} applications`,
  );
  console.log(output.trim());
  console.log(
    `${during.length} requests answered meanwhile by ${sha.slice(0, 7)}: ${failed} 5xx; ` +
      `p50 ${at(0.5).toFixed(0)} ms, p99 ${at(0.99).toFixed(0)} ms, slowest ${at(1).toFixed(0)} ms; ` +
      `at most ${peakWaiting} sessions waiting for a lock; load average ${load1}`,
  );
  console.log('| table | before (MB) | after (MB) |');
  console.log('| --- | ---: | ---: |');
  for (const table of TABLES) {
    console.log(
      `| ${table} | ${((before[table] ?? 0) / 1e6).toFixed(0)} | ${((after[table] ?? 0) / 1e6).toFixed(0)} |`,
    );
  }
  if (code !== 0 || failed > 0) process.exitCode = 1;
}

await main();
