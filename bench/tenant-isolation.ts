/**
 * `npm run bench:tenants`: do tenants wait for each other? Against the real service
 * (dist/src/main.js, started as `npm start` does) on a fresh PostgreSQL database
 * (`fi_bench_tenants`, BENCH_TENANTS_DATABASE), with HTTP keep-alive clients in this process:
 *
 * 1. lead creates, 50 connections in ONE enterprise against 50 connections spread over 50
 *    enterprises, in alternating rounds: the throughput ratio (target at least 0.8);
 * 2. lead POSTs in enterprise E while the CLI imports 100,000 people and 10,000 leads into E in
 *    one transaction: p99 (target under 100 ms) and any 503;
 * 3. reads of enterprise B while 20 writers of enterprise A wait on a lead held by an open
 *    transaction, against the same reads with A idle, alternating: p99 ratio (target at most
 *    1.2) and any 503 of B;
 * 4. feed delay: a lead POSTed every second in E, polled every 100 ms on E's feed, while a 12-s
 *    transaction writes another enterprise, then while one runs in another database (target
 *    under 1 s).
 *
 * Prints a table and writes bench/results/tenants-<date>-<commit>.json.
 */
import { execSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { hashPassword } from '../src/auth/password-hasher.js';
import { openDataSource } from '../src/data-source.js';
import { runMigrations } from '../src/database/migration-runner.js';
import { selectRows } from '../src/database/sql.js';
import { freshDatabase } from './lib/fresh-database.js';
import { startScriptNodeFlags, startServer, type RunningServer, serviceSettingsFromBench } from './lib/processes.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DATABASE = process.env.BENCH_TENANTS_DATABASE ?? 'fi_bench_tenants';
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const IMPORT_PEOPLE = Number(process.env.BENCH_IMPORT_PEOPLE ?? 100_000);
const IMPORT_LEADS = Number(process.env.BENCH_IMPORT_LEADS ?? 10_000);
const APP_KEY = `base64:${Buffer.alloc(32, 5).toString('base64')}`;
const USER = { email: 'tenants@example.com', password: 'tenants-password' };
const ENTERPRISES = 52;
/** Only the parts whose names are listed (`creates,reads,feed,import`); all by default. */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'creates,reads,feed,import').split(',').map((p) => p.trim()));
/** The service's pool and bulkhead, when a run compares settings (default: the service's own). */
const SERVICE_POOL_ENV = serviceSettingsFromBench(['DATABASE_POOL_MAX', 'DATABASE_POOL_MAX_PER_ENTERPRISE']);

interface Sample {
  readonly ms: number;
  readonly status: number;
}

interface Summary {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return new Promise<Sample & { body: string }>((resolvePromise, reject) => {
    const started = performance.now();
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolvePromise({
            ms: performance.now() - started,
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function summarise(samples: readonly Sample[], seconds: number): Summary {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const statuses: Record<string, number> = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  return {
    requests: samples.length,
    perSecond: samples.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.at(-1) ?? 0,
    statuses,
  };
}

/** `connections` loops, each sending `next(i)` back to back for `seconds`. */
async function load(
  seconds: number,
  connections: number,
  next: (connection: number) => Promise<Sample>,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async (_, connection) => {
      while (performance.now() < until) samples.push(await next(connection));
    }),
  );
  return samples;
}

interface Fixture {
  url: string;
  enterprises: string[];
  leadOf: Map<string, string>;
}

async function prepare(): Promise<Fixture> {
  const url = await freshDatabase(SERVER_URL, DATABASE);
  const dataSource = await openDataSource({ url, poolMax: 2 });
  await runMigrations(dataSource);
  const enterprises = (
    await selectRows<{ id: string }>(
      dataSource,
      `INSERT INTO enterprises (name) SELECT 'Tenant ' || i FROM generate_series(1, $1::int) i RETURNING id`,
      [ENTERPRISES],
    )
  ).map((row) => row.id);
  const [user] = await selectRows<{ id: string }>(
    dataSource,
    `INSERT INTO users (name, email, password_hash) VALUES ('Tenants Broker', $1, $2) RETURNING id`,
    [USER.email, await hashPassword(USER.password)],
  );
  const userId = user?.id;
  await dataSource.query(`INSERT INTO memberships (user_id, enterprise_id) SELECT $1, unnest($2::uuid[])`, [
    userId,
    enterprises,
  ]);
  await dataSource.query(
    `INSERT INTO people (enterprise_id, last_name) SELECT e, 'Person ' || i FROM unnest($1::uuid[]) e, generate_series(1, 300) i`,
    [enterprises],
  );
  const leads = await selectRows<{ id: string; enterprise_id: string }>(
    dataSource,
    `INSERT INTO leads (enterprise_id, title, person_name) SELECT e, 'Lead', 'Kim' FROM unnest($1::uuid[]) e RETURNING id, enterprise_id`,
    [enterprises],
  );
  await dataSource.query('VACUUM ANALYZE');
  await dataSource.destroy();
  return { url, enterprises, leadOf: new Map(leads.map((l) => [l.enterprise_id, l.id])) };
}

const leadBody = () => ({ title: `Bench lead ${randomUUID()}`, person_name: 'Kim' });

async function main(): Promise<void> {
  const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
  const dirty = execSync('git status --porcelain --untracked-files=no', { cwd: ROOT }).toString().trim() !== '';
  const loadBefore = loadavg().map((n) => n.toFixed(2));
  process.stderr.write(`load average before: ${loadBefore.join(' ')}\n`);
  const fixture = await prepare();
  const [one, ...others] = fixture.enterprises as [string, ...string[]];
  const spread = others.slice(0, 50);
  const tenantB = others[50] as string;
  const server: RunningServer = await startServer(
    'service',
    join(ROOT, 'dist/src/main.js'),
    {
      DATABASE_URL: fixture.url,
      APP_KEY,
      RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
      MIGRATIONS_RUN: 'false',
      ...SERVICE_POOL_ENV,
    },
    startScriptNodeFlags(ROOT),
  );
  const results: Record<string, unknown> = {
    commit: dirty ? `${commit}-dirty` : commit,
    loadBefore,
    service: SERVICE_POOL_ENV,
  };
  try {
    const login = await call(server.url, 'POST', '/api/v2/login', { accept: 'application/json' }, USER);
    const token = (JSON.parse(login.body) as { access_token: string }).access_token;
    const headers = (enterprise: string) => ({
      authorization: `Bearer ${token}`,
      'x-enterprise-id': enterprise,
      accept: 'application/json',
    });
    const post = (enterprise: string) => call(server.url, 'POST', '/api/v2/leads', headers(enterprise), leadBody());

    // 1. One enterprise against fifty, alternating rounds.
    if (PARTS.has('creates')) await creates();
    async function creates(): Promise<void> {
      const oneSamples: Sample[] = [];
      const spreadSamples: Sample[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        oneSamples.push(...(await load(ROUND_SECONDS, 50, () => post(one))));
        spreadSamples.push(...(await load(ROUND_SECONDS, 50, (c) => post(spread[c] as string))));
      }
      const oneSummary = summarise(oneSamples, ROUNDS * ROUND_SECONDS);
      const spreadSummary = summarise(spreadSamples, ROUNDS * ROUND_SECONDS);
      results.leadCreates = {
        oneEnterprise: oneSummary,
        fiftyEnterprises: spreadSummary,
        ratio: oneSummary.perSecond / spreadSummary.perSecond,
      };
    }

    // 3. Reads of B with A idle, then with 20 writers of A waiting on a held lead, alternating.
    if (PARTS.has('reads')) await reads();
    async function reads(): Promise<void> {
      const readsOfB = (c: number) =>
        call(
          server.url,
          'GET',
          c % 2 === 0 ? `/api/v2/leads/${fixture.leadOf.get(tenantB)}` : '/api/v2/people?page=2',
          headers(tenantB),
        );
      const idle: Sample[] = [];
      const blocked: Sample[] = [];
      const writerStatuses: Sample[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        idle.push(...(await load(ROUND_SECONDS, 10, readsOfB)));
        const holder = new pg.Client({ connectionString: fixture.url });
        await holder.connect();
        await holder.query('BEGIN');
        await holder.query(`UPDATE leads SET description = 'held' WHERE id = $1`, [fixture.leadOf.get(one)]);
        let holding = true;
        const writers = Promise.all(
          Array.from({ length: 20 }, async () => {
            while (holding) {
              writerStatuses.push(
                await call(server.url, 'PUT', `/api/v2/leads/${fixture.leadOf.get(one)}`, headers(one), leadBody()),
              );
            }
          }),
        );
        await new Promise((r) => setTimeout(r, 300));
        blocked.push(...(await load(ROUND_SECONDS, 10, readsOfB)));
        holding = false;
        await holder.query('ROLLBACK');
        await holder.end();
        await writers;
      }
      const idleSummary = summarise(idle, ROUNDS * ROUND_SECONDS);
      const blockedSummary = summarise(blocked, ROUNDS * ROUND_SECONDS);
      results.readsBesideBlockedWriters = {
        aIdle: idleSummary,
        aBlocked: blockedSummary,
        p99Ratio: blockedSummary.p99 / idleSummary.p99,
        writersOfA: summarise(writerStatuses, ROUNDS * ROUND_SECONDS).statuses,
      };
    }

    // 4. Feed delay beside a 12-s transaction on another enterprise, then in another database.
    if (PARTS.has('feed'))
      results.feedDelay = {
        otherEnterprise: await feedDelay(
          server,
          headers(one),
          async (client) => {
            await client.connect();
            await client.query('BEGIN');
            await client.query(`INSERT INTO leads (enterprise_id, title) VALUES ($1, 'long')`, [tenantB]);
          },
          new pg.Client({ connectionString: fixture.url }),
        ),
        otherDatabase: await feedDelay(
          server,
          headers(one),
          async (client) => {
            await client.connect();
            await client.query('CREATE TABLE IF NOT EXISTS long_writer (n int)');
            await client.query('BEGIN');
            await client.query('INSERT INTO long_writer VALUES (1)');
          },
          new pg.Client({ connectionString: SERVER_URL }),
        ),
      };

    // 2. Lead POSTs in E while a big import into E runs in one transaction.
    if (PARTS.has('import')) results.postsDuringImport = await postsDuringImport(fixture, one, () => post(one));
  } finally {
    await server.stop();
    agent.destroy();
  }
  results.loadAfter = loadavg().map((n) => n.toFixed(2));
  const out = join(ROOT, 'bench/results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `tenants-${new Date().toISOString().slice(0, 10)}-${String(results.commit)}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  print(results);
  process.stderr.write(`written ${file}\n`);
}

/** A lead POSTed every second for 12 s while `open` holds a transaction; each one's delay to the feed. */
async function feedDelay(
  server: RunningServer,
  headers: Record<string, string>,
  open: (client: pg.Client) => Promise<void>,
  client: pg.Client,
): Promise<{ delaysMs: number[]; maxMs: number }> {
  const cursorAnswer = await call(server.url, 'GET', '/api/v2/changes/cursor?types=lead', headers);
  let cursor = (JSON.parse(cursorAnswer.body) as { data: { cursor: string } }).data.cursor;
  await open(client);
  const delays: number[] = [];
  try {
    for (let i = 0; i < 12; i++) {
      const started = performance.now();
      const created = await call(server.url, 'POST', '/api/v2/leads', headers, leadBody());
      const committed = performance.now();
      const id = (JSON.parse(created.body) as { data: { id: string } }).data.id;
      for (;;) {
        const page = await call(server.url, 'GET', `/api/v2/changes?types=lead&cursor=${cursor}`, headers);
        const body = JSON.parse(page.body) as { data: { id: string }[]; meta: { next_cursor: string } };
        cursor = body.meta.next_cursor;
        if (body.data.some((entry) => entry.id === id)) break;
        if (performance.now() - committed > 15_000) throw new Error('a lead never reached the feed');
        await new Promise((r) => setTimeout(r, 100));
      }
      delays.push(Math.round(performance.now() - committed));
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - started))));
    }
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
  return { delaysMs: delays, maxMs: Math.max(...delays) };
}

/** Writes the import file (people and leads of `enterprise`), runs the CLI, POSTs leads meanwhile. */
async function postsDuringImport(
  fixture: Fixture,
  enterprise: string,
  post: () => Promise<Sample>,
): Promise<Record<string, unknown>> {
  const file = join(tmpdir(), `fi-bench-tenants-${process.pid}.json`);
  const out = createWriteStream(file);
  out.write('{"people":[');
  for (let i = 0; i < IMPORT_PEOPLE; i++) {
    const line = `${i ? ',' : ''}{"id":"${randomUUID()}","enterprise_id":"${enterprise}","first_name":"Jane","last_name":"Import ${i}","emails":[{"id":"${randomUUID()}","address":"p${i}@example.com","is_primary":true}]}`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.write('],"leads":[');
  for (let i = 0; i < IMPORT_LEADS; i++) {
    const line = `${i ? ',' : ''}{"id":"${randomUUID()}","enterprise_id":"${enterprise}","title":"Imported ${i}","person_name":"Kim"}`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end(']}');
  await once(out, 'finish');
  const started = performance.now();
  const cli = spawn(process.execPath, [join(ROOT, 'dist/src/cli/main.js'), 'import', file], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: fixture.url, APP_KEY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  cli.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  let running = true;
  const exited = once(cli, 'exit').then(([code]) => {
    running = false;
    return code as number;
  });
  const samples: Sample[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (running) {
        samples.push(await post());
        await new Promise((r) => setTimeout(r, 50));
      }
    }),
  );
  const code = await exited;
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`the import failed (${code}): ${stderr}`);
  return { importSeconds: seconds, posts: summarise(samples, seconds) };
}

function print(results: Record<string, unknown>): void {
  const r = results as {
    leadCreates?: { oneEnterprise: Summary; fiftyEnterprises: Summary; ratio: number };
    readsBesideBlockedWriters?: {
      aIdle: Summary;
      aBlocked: Summary;
      p99Ratio: number;
      writersOfA: Record<string, number>;
    };
    feedDelay?: { otherEnterprise: { maxMs: number }; otherDatabase: { maxMs: number } };
    postsDuringImport?: { importSeconds: number; posts: Summary };
  };
  const f = (n: number) => n.toFixed(1);
  const row = (name: string, s: Summary, target = '') =>
    `| ${name} | ${f(s.perSecond)} req/s, p50 ${f(s.p50)} ms, p99 ${f(s.p99)} ms, ${JSON.stringify(s.statuses)} | ${target} |`;
  const lines = [
    `commit ${String(results.commit)}; service ${JSON.stringify(results.service)}; load average before ${(results.loadBefore as string[]).join(' ')}, after ${(results.loadAfter as string[]).join(' ')}`,
    '| measure | figure | target |',
    '|---|---|---|',
  ];
  if (r.leadCreates) {
    lines.push(row('lead creates, 50 connections in one enterprise', r.leadCreates.oneEnterprise));
    lines.push(row('lead creates, 50 connections over 50 enterprises', r.leadCreates.fiftyEnterprises));
    lines.push(`| ratio one / fifty | ${r.leadCreates.ratio.toFixed(2)} | at least 0.8 |`);
  }
  if (r.readsBesideBlockedWriters) {
    const reads = r.readsBesideBlockedWriters;
    lines.push(row('reads of B, A idle', reads.aIdle));
    lines.push(row('reads of B, 20 writers of A blocked', reads.aBlocked, 'no 503'));
    lines.push(
      `| p99 ratio blocked / idle | ${reads.p99Ratio.toFixed(2)} (writers of A: ${JSON.stringify(reads.writersOfA)}) | at most 1.2 |`,
    );
  }
  if (r.feedDelay) {
    lines.push(
      `| feed delay beside a 12-s transaction on another enterprise | max ${r.feedDelay.otherEnterprise.maxMs} ms | under 1 s |`,
    );
    lines.push(
      `| feed delay beside a 12-s transaction in another database | max ${r.feedDelay.otherDatabase.maxMs} ms | under 1 s |`,
    );
  }
  if (r.postsDuringImport) {
    const during = r.postsDuringImport;
    lines.push(
      row(`lead POSTs during the import (${f(during.importSeconds)} s)`, during.posts, 'p99 under 100 ms, no 503'),
    );
  }
  console.log(lines.join('\n'));
}

await main();
