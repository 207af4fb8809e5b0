/**
 * Outbound webhooks (issue 31), by hand: `DATABASE_URL=postgres://... npm run bench:webhooks`.
 *
 * The service runs in this process against a fresh database (finance_intake_webhooks_bench), and
 * delivers to a receiver on loopback that answers 204 at once:
 * 1. throughput: one endpoint, BENCH_WEBHOOK_BACKLOG leads written at once, deliveries per second;
 * 2. latency: lead POSTs at 50 a second for BENCH_WEBHOOK_SECONDS, commit to arrival, p50 and p99;
 * 3. fan-out: 100 enterprises with an endpoint each, one change each per second, lag p99 and
 *    whether every change arrived;
 * 4. a slow tenant: enterprise B's 40 endpoints answer after 9 s (a lead of B every second keeps
 *    them busy) while enterprise A writes 20 leads a second to one endpoint answering at once: A's
 *    commit-to-arrival p50 and p99, and how many of B's deliveries arrived meanwhile.
 * Prints one JSON line per scenario. Quote `uptime` with the figures: the receiver, the service
 * and PostgreSQL share the machine.
 */
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../src/app.factory.js';
import { hashPassword } from '../src/auth/password-hasher.js';
import { loadConfig } from '../src/config/app-config.js';
import { openDataSource } from '../src/data-source.js';
import { runMigrations } from '../src/database/migration-runner.js';
import { WebhookDeliveryWorker } from '../src/webhook-endpoints/webhook-delivery.worker.js';
import { freshDatabase } from './lib/fresh-database.js';

const SERVER_URL = process.env.DATABASE_URL;
if (!SERVER_URL) throw new Error('Set DATABASE_URL to a PostgreSQL server (a fresh database is made on it).');
const DATABASE = 'finance_intake_webhooks_bench';
const BACKLOG = Number(process.env.BENCH_WEBHOOK_BACKLOG ?? 5_000);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 20);
const ENTERPRISES = 100;
const SLOW_ENDPOINTS = 40;
const SLOW_ANSWER_MS = 9_000;
const APP_KEY = `base64:${Buffer.alloc(32, 9).toString('base64')}`;
const USER = { email: 'hooks-bench@example.com', password: 'hooks-bench-password' };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** Arrival time of each delivered record id, by URL path. */
const arrivals = new Map<string, Map<string, number>>();

function startReceiver(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const now = performance.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } };
      const path = req.url ?? '/';
      let seen = arrivals.get(path);
      if (!seen) arrivals.set(path, (seen = new Map<string, number>()));
      if (!seen.has(event.data.id)) seen.set(event.data.id, now);
      // The slow tenant's receivers answer after 9 s (arrival counts when the request came in).
      if (path.startsWith('/slow/')) setTimeout(() => res.writeHead(204).end(), SLOW_ANSWER_MS);
      else res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
    }),
  );
}

async function migratedDatabase(): Promise<string> {
  const url = await freshDatabase(SERVER_URL ?? '', DATABASE);
  const dataSource = await openDataSource({ url, poolMax: 1 });
  await runMigrations(dataSource);
  await dataSource.destroy();
  return url;
}

async function until(test: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) return false;
    await sleep(5);
  }
  return true;
}

async function main(): Promise<void> {
  const url = await migratedDatabase();
  const config = loadConfig({
    DATABASE_URL: url,
    APP_KEY,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: process.env.WEBHOOK_POLL_INTERVAL_MS ?? '100',
    ...(process.env.WEBHOOK_DATABASE_POOL_MAX
      ? { WEBHOOK_DATABASE_POOL_MAX: process.env.WEBHOOK_DATABASE_POOL_MAX }
      : {}),
    DATABASE_POOL_MAX: '10',
    WEBHOOK_ENDPOINTS_PER_ENTERPRISE: String(SLOW_ENDPOINTS),
  });
  const app: NestFastifyApplication = await createApp(config, { url, poolMax: 10 });
  const db = app.get<DataSource>(getDataSourceToken());
  const receiver = await startReceiver();
  const worker = app.get(WebhookDeliveryWorker);

  const [{ id: userId }] = await db.query<[{ id: string }]>(
    `INSERT INTO users (name, email, password_hash) VALUES ('Hooks', $1, $2) RETURNING id`,
    [USER.email, await hashPassword(USER.password)],
  );
  const enterprises = await db.query<{ id: string }[]>(
    `INSERT INTO enterprises (name) SELECT 'Hooks ' || i FROM generate_series(1, $1::int) i RETURNING id`,
    [ENTERPRISES + 1],
  );
  const main = enterprises[0]?.id ?? '';
  await db.query(`INSERT INTO memberships (user_id, enterprise_id) SELECT $1, unnest($2::uuid[])`, [
    userId,
    enterprises.map((e) => e.id),
  ]);
  const login = await app.inject({ method: 'POST', url: '/api/v2/login', payload: USER });
  const token = login.json<{ access_token: string }>().access_token;
  const headers = (enterprise: string) => ({
    authorization: `Bearer ${token}`,
    'x-enterprise-id': enterprise,
    accept: 'application/json',
  });
  const endpoint = async (enterprise: string, path: string) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/webhook-endpoints',
      headers: headers(enterprise),
      payload: { url: `${receiver.base}${path}`, types: ['lead'] },
    });
    if (res.statusCode !== 201) throw new Error(`endpoint: ${res.statusCode} ${res.body}`);
  };
  const load = () => loadavg().map((n) => n.toFixed(2));

  // 1. Throughput: a backlog of leads, then the worker starts.
  await endpoint(main, '/throughput');
  await db.query(
    `INSERT INTO leads (enterprise_id, title, person_name) SELECT $1, 'Backlog ' || i, 'Pat' FROM generate_series(1, $2::int) i`,
    [main, BACKLOG],
  );
  worker.start();
  const started = performance.now();
  const done = await until(() => (arrivals.get('/throughput')?.size ?? 0) >= BACKLOG, 300_000);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    JSON.stringify({
      scenario: 'throughput',
      delivered: arrivals.get('/throughput')?.size ?? 0,
      complete: done,
      seconds: Number(seconds.toFixed(2)),
      deliveries_per_second: Math.round((arrivals.get('/throughput')?.size ?? 0) / seconds),
      loadavg: load(),
    }),
  );

  // 2. Commit-to-arrival latency at 50 lead POSTs a second.
  await db.query(`DELETE FROM webhook_endpoints`);
  await endpoint(main, '/latency');
  const committed = new Map<string, number>();
  const writes: Promise<void>[] = [];
  const t0 = performance.now();
  for (let n = 0; n < 50 * SECONDS; n++) {
    const due = t0 + n * 20;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(
      app
        .inject({
          method: 'POST',
          url: '/api/v2/leads',
          headers: headers(main),
          payload: { title: `Latency ${n}`, person_name: 'Pat' },
        })
        .then((res) => {
          committed.set(res.json<{ data: { id: string } }>().data.id, performance.now());
        }),
    );
  }
  await Promise.all(writes);
  await until(() => (arrivals.get('/latency')?.size ?? 0) >= committed.size, 60_000);
  const latencies = [...committed].flatMap(([id, at]) => {
    const arrived = arrivals.get('/latency')?.get(id);
    return arrived === undefined ? [] : [Math.max(0, arrived - at)];
  });
  console.log(
    JSON.stringify({
      scenario: 'latency_50_writes_per_second',
      writes: committed.size,
      delivered: latencies.length,
      p50_ms: Math.round(percentile(latencies, 50)),
      p99_ms: Math.round(percentile(latencies, 99)),
      loadavg: load(),
    }),
  );

  // 3. 100 endpoints across 100 enterprises, one change each per second.
  await db.query(`DELETE FROM webhook_endpoints`);
  const fanout = enterprises.slice(1);
  for (const [i, e] of fanout.entries()) await endpoint(e.id, `/fanout/${i}`);
  const leadIds = await db.query<{ id: string; enterprise_id: string }[]>(
    `INSERT INTO leads (enterprise_id, title, person_name) SELECT unnest($1::uuid[]), 'Fan-out', 'Pat' RETURNING id, enterprise_id`,
    [fanout.map((e) => e.id)],
  );
  await sleep(2_000);
  arrivals.forEach((seen, path) => path.startsWith('/fanout/') && seen.clear());
  const lags: number[] = [];
  let expected = 0;
  let delivered = 0;
  for (let round = 0; round < SECONDS; round++) {
    const roundStart = performance.now();
    for (const path of arrivals.keys()) if (path.startsWith('/fanout/')) arrivals.get(path)?.clear();
    const changedAt = new Map<string, number>();
    for (const lead of leadIds) {
      await db.query(`UPDATE leads SET title = $2 WHERE id = $1`, [lead.id, `Fan-out ${round}`]);
      changedAt.set(lead.id, performance.now());
    }
    expected += leadIds.length;
    await until(
      () => fanout.every((_, i) => (arrivals.get(`/fanout/${i}`)?.size ?? 0) >= 1),
      Math.max(0, 1000 - (performance.now() - roundStart)) + 5_000,
    );
    for (const [i] of fanout.entries()) {
      for (const [id, at] of arrivals.get(`/fanout/${i}`) ?? []) {
        const changed = changedAt.get(id);
        if (changed !== undefined) {
          lags.push(at - changed);
          delivered += 1;
        }
      }
    }
    const rest = 1000 - (performance.now() - roundStart);
    if (rest > 0) await sleep(rest);
  }
  console.log(
    JSON.stringify({
      scenario: 'fanout_100_endpoints',
      changes: expected,
      delivered,
      lag_p50_ms: Math.round(percentile(lags, 50)),
      lag_p99_ms: Math.round(percentile(lags, 99)),
      loadavg: load(),
    }),
  );

  // 4. A slow tenant beside a busy one.
  await db.query(`DELETE FROM webhook_endpoints`);
  const [slowTenant, busyTenant] = [fanout[0]?.id ?? '', main];
  for (let i = 0; i < SLOW_ENDPOINTS; i++) await endpoint(slowTenant, `/slow/${i}`);
  await endpoint(busyTenant, '/busy');
  const slowWriter = setInterval(() => {
    void db.query(`INSERT INTO leads (enterprise_id, title, person_name) VALUES ($1, 'Slow tenant', 'Pat')`, [
      slowTenant,
    ]);
  }, 1000);
  await db.query(`INSERT INTO leads (enterprise_id, title, person_name) VALUES ($1, 'Slow tenant', 'Pat')`, [
    slowTenant,
  ]);
  await sleep(1_000);
  const busyCommitted = new Map<string, number>();
  const busyWrites: Promise<void>[] = [];
  const t4 = performance.now();
  for (let n = 0; n < 20 * SECONDS; n++) {
    const wait = t4 + n * 50 - performance.now();
    if (wait > 0) await sleep(wait);
    busyWrites.push(
      app
        .inject({
          method: 'POST',
          url: '/api/v2/leads',
          headers: headers(busyTenant),
          payload: { title: `Busy ${n}`, person_name: 'Pat' },
        })
        .then((res) => {
          busyCommitted.set(res.json<{ data: { id: string } }>().data.id, performance.now());
        }),
    );
  }
  await Promise.all(busyWrites);
  await until(() => (arrivals.get('/busy')?.size ?? 0) >= busyCommitted.size, 30_000);
  clearInterval(slowWriter);
  const busyLatencies = [...busyCommitted].flatMap(([id, at]) => {
    const arrived = arrivals.get('/busy')?.get(id);
    return arrived === undefined ? [] : [Math.max(0, arrived - at)];
  });
  let slowArrivals = 0;
  for (const [path, seen] of arrivals) if (path.startsWith('/slow/')) slowArrivals += seen.size;
  console.log(
    JSON.stringify({
      scenario: 'slow_tenant_40_endpoints_9s',
      busy_writes: busyCommitted.size,
      busy_delivered: busyLatencies.length,
      busy_p50_ms: Math.round(percentile(busyLatencies, 50)),
      busy_p99_ms: Math.round(percentile(busyLatencies, 99)),
      slow_deliveries_started: slowArrivals,
      loadavg: load(),
    }),
  );

  await worker.stop();
  await app.close();
  receiver.server.closeAllConnections();
  receiver.server.close();
}

await main();
