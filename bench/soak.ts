import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { importDocument } from '../src/cli/import/importer.js';
import { FieldCipher } from '../src/crypto/field-cipher.js';
import { parseAppKey } from '../src/config/app-key.js';
import { runMigrations } from '../src/database/migration-runner.js';
import { openDataSource } from '../src/data-source.js';
import { rssMiB, startScriptNodeFlags, startServer, type RunningServer } from './lib/processes.js';

/**
 * `npm run soak`: mixed traffic against the real service (dist/src/main.js in its own process)
 * for SOAK_DURATION seconds (default 600), sampling the server's memory, open file descriptors,
 * client connections and database connections over time. Fails on any 5xx or a crash.
 *
 *   SOAK_DURATION=60 npm run soak                       # a short run
 *   SOAK_DATABASE_URL=postgres://... npm run soak       # on a real server (a database of its own)
 *
 * Without SOAK_DATABASE_URL (or DATABASE_URL) it runs on the embedded database.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const DURATION_S = Number(process.env.SOAK_DURATION ?? 600);
const SAMPLE_S = Number(process.env.SOAK_SAMPLE_SECONDS ?? Math.max(1, Math.round(DURATION_S / 20)));
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const SERVER_URL = process.env.SOAK_DATABASE_URL ?? process.env.DATABASE_URL;
const REPORT = process.env.SOAK_REPORT ?? join(ROOT, 'dist', 'soak-report.json');
const APP_KEY = `base64:${Buffer.alloc(32, 5).toString('base64')}`;
const SECRET_A = 'soak-webhook-secret';
const USER = { email: 'soak@example.com', password: 'soak-password' };
const OTHER_USER = { email: 'soak-other@example.com', password: 'soak-password' };

interface Sample {
  atSeconds: number;
  rssMiB: number;
  openFds: number;
  clientConnections: number;
  databaseConnections: number | null;
  requests: number;
  requestsPerSecond: number;
  p50ms: number;
  p99ms: number;
  errors5xx: number;
}

interface Fixture {
  enterpriseId: string;
  otherEnterpriseId: string;
  personIds: string[];
  organisationIds: string[];
  applicationIds: string[];
  quoteIds: string[];
  leadIds: string[];
  documentId: string;
}

function fixtureDocument(): { doc: Record<string, Record<string, unknown>[]>; fixture: Fixture } {
  const enterpriseId = randomUUID();
  const otherEnterpriseId = randomUUID();
  const ids = (n: number) => Array.from({ length: n }, () => randomUUID());
  const fixture: Fixture = {
    enterpriseId,
    otherEnterpriseId,
    personIds: ids(250),
    organisationIds: ids(60),
    applicationIds: ids(30),
    quoteIds: ids(30),
    leadIds: ids(40),
    documentId: 'soak-document-1',
  };
  const contacts = (i: number) => ({
    phone_numbers: [{ id: randomUUID(), type: 'mobile', number: `0400 000 ${i}`, is_primary: true }],
    emails: [{ id: randomUUID(), address: `person${i}@example.com`, is_primary: true }],
    addresses: [{ id: randomUUID(), type: 'Residential', line1: `${i} Main St`, suburb: 'Sydney', postcode: '2000' }],
  });
  const doc = {
    enterprises: [
      { id: enterpriseId, name: 'Soak Finance', is_active: true },
      { id: otherEnterpriseId, name: 'Other Finance', is_active: true },
    ],
    users: [
      { id: randomUUID(), name: 'Soak Broker', ...USER, is_active: true, enterprise_ids: [enterpriseId] },
      { id: randomUUID(), name: 'Other Broker', ...OTHER_USER, is_active: true, enterprise_ids: [otherEnterpriseId] },
    ],
    people: fixture.personIds.map((id, i) => ({
      id,
      enterprise_id: i % 10 === 9 ? otherEnterpriseId : enterpriseId,
      first_name: `First${i}`,
      last_name: `Last${i}`,
      ...contacts(i),
      financials: [{ id: randomUUID(), type: 'income', amount: '5200.00', category: 'salary' }],
    })),
    organisations: fixture.organisationIds.map((id, i) => ({
      id,
      enterprise_id: enterpriseId,
      legal_name: `Organisation ${i} Pty Ltd`,
      ...contacts(i),
    })),
    applications: fixture.applicationIds.map((id, i) => ({
      id,
      enterprise_id: enterpriseId,
      contract_number: `C-${i}`,
    })),
    quotes: fixture.quoteIds.map((id, i) => ({
      id,
      enterprise_id: enterpriseId,
      application_id: fixture.applicationIds[i],
      is_active: true,
      calculation: { asset_type: 'Motor Vehicle', financier: 'Bank', total_finance_amount: '45000.00' },
    })),
    leads: fixture.leadIds.map((id, i) => ({
      id,
      enterprise_id: enterpriseId,
      title: `Lead ${i}`,
      person_name: 'Jane',
    })),
    signing_documents: [
      { id: randomUUID(), enterprise_id: enterpriseId, provider: 'a', external_id: fixture.documentId, status: 'sent' },
    ],
  };
  return { doc, fixture };
}

/** A database of the soak's own: on the given server, or in a fresh embedded data directory. */
async function prepareDatabase(doc: Record<string, Record<string, unknown>[]>): Promise<{
  env: Record<string, string>;
  databaseName: string | null;
  cleanup(): Promise<void>;
}> {
  const key = parseAppKey(APP_KEY);
  if (!key) throw new Error('bad key');
  const cipher = new FieldCipher([key]);
  if (SERVER_URL) {
    const databaseName = `finance_intake_soak_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: SERVER_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const url = new URL(SERVER_URL);
    url.pathname = `/${databaseName}`;
    const dataSource = await openDataSource({ url: url.toString(), poolMax: 2 });
    await runMigrations(dataSource);
    const outcome = await importDocument(dataSource, cipher, doc);
    await dataSource.destroy();
    if (!outcome.ok) throw new Error(outcome.problems.join('\n'));
    return {
      env: { DATABASE_URL: url.toString() },
      databaseName,
      async cleanup() {
        const client = new pg.Client({ connectionString: SERVER_URL });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  // Embedded: import with the CLI's code path into the data directory the service will use.
  const dataDir = mkdtempSync(join(tmpdir(), 'finance-intake-soak-'));
  const { startEmbeddedPostgres } = await import('../src/database/embedded-postgres.js');
  const server = await startEmbeddedPostgres(join(dataDir, 'pgdata'));
  try {
    const dataSource = await openDataSource({ url: server.url, poolMax: 1 });
    await runMigrations(dataSource);
    const outcome = await importDocument(dataSource, cipher, doc);
    await dataSource.destroy();
    if (!outcome.ok) throw new Error(outcome.problems.join('\n'));
  } finally {
    await server.stop();
  }
  return {
    env: { DATA_DIR: dataDir },
    databaseName: null,
    cleanup: () => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })),
  };
}

function send(
  agent: Agent,
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = request(`${base}${path}`, { agent, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      res.on('error', fail);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('client timeout')));
    req.on('error', fail);
    req.end(body);
  });
}

type Call = { method: string; path: string; headers: Record<string, string>; body?: string; name: string };

/** The traffic mix: mostly reads, lead writes, and a share of every kind of refusal. */
function traffic(fixture: Fixture, token: () => string, otherToken: string, leads: string[]): () => Call {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;
  const v2 = () => ({
    authorization: `Bearer ${token()}`,
    'x-enterprise-id': fixture.enterpriseId,
    accept: 'application/json',
  });
  const v1 = () => ({
    authorization: `Bearer ${token()}`,
    enterpriseid: fixture.enterpriseId,
    accept: 'application/json',
  });
  const json = { 'content-type': 'application/json' };
  const webhookBody = JSON.stringify({ event: 'document.viewed', data: { documentId: fixture.documentId } });
  const signature = createHmac('sha256', SECRET_A).update(webhookBody).digest('hex');
  const mix: [number, () => Call][] = [
    [
      10,
      () => ({
        name: 'v2 people page',
        method: 'GET',
        path: `/api/v2/people?page=${1 + Math.floor(Math.random() * 4)}`,
        headers: v2(),
      }),
    ],
    [
      6,
      () => ({
        name: 'v1 people page',
        method: 'GET',
        path: `/api/v1/people?page=${1 + Math.floor(Math.random() * 3)}`,
        headers: v1(),
      }),
    ],
    [8, () => ({ name: 'person', method: 'GET', path: `/api/v2/people/${pick(fixture.personIds)}`, headers: v2() })],
    [5, () => ({ name: 'organisations', method: 'GET', path: '/api/v2/organisations', headers: v2() })],
    [
      5,
      () => ({
        name: 'organisation',
        method: 'GET',
        path: `/api/v1/organisations/${pick(fixture.organisationIds)}`,
        headers: v1(),
      }),
    ],
    [4, () => ({ name: 'applications', method: 'GET', path: '/api/v2/applications', headers: v2() })],
    [4, () => ({ name: 'quotes v1', method: 'GET', path: '/api/v1/quotes', headers: v1() })],
    [4, () => ({ name: 'quote', method: 'GET', path: `/api/v2/quotes/${pick(fixture.quoteIds)}`, headers: v2() })],
    [6, () => ({ name: 'leads', method: 'GET', path: '/api/v2/leads', headers: v2() })],
    [4, () => ({ name: 'lead', method: 'GET', path: `/api/v1/leads/${pick(leads)}`, headers: v1() })],
    [3, () => ({ name: 'enterprises', method: 'GET', path: '/api/v2/enterprises', headers: v2() })],
    [3, () => ({ name: 'users', method: 'GET', path: '/api/v1/users', headers: v1() })],
    [
      6,
      () => ({
        name: 'lead create v2',
        method: 'POST',
        path: '/api/v2/leads',
        headers: { ...v2(), ...json },
        body: JSON.stringify({
          Title: `Soak ${randomUUID()}`,
          PersonName: 'Jane',
          FinanceAmount: 25000,
          Email: 'jane@example.com',
        }),
      }),
    ],
    [
      3,
      () => ({
        name: 'lead create v1',
        method: 'POST',
        path: '/api/v1/leads',
        headers: { ...v1(), ...json },
        body: JSON.stringify({ Title: 'Soak v1', PersonName: 'John', extra_notes: { source: 'soak' } }),
      }),
    ],
    [
      3,
      () => ({
        name: 'lead update',
        method: 'PUT',
        path: `/api/v2/leads/${pick(leads)}`,
        headers: { ...v2(), ...json },
        body: JSON.stringify({ title: 'Updated by soak', person: 'Jane', description: randomUUID() }),
      }),
    ],
    [
      3,
      () => ({
        name: 'invalid lead (400)',
        method: 'POST',
        path: '/api/v2/leads',
        headers: { ...v2(), ...json },
        body: '{"title":""}',
      }),
    ],
    [
      2,
      () => ({
        name: 'malformed JSON (400)',
        method: 'POST',
        path: '/api/v1/leads',
        headers: { ...v1(), ...json },
        body: '{"Title":',
      }),
    ],
    [
      2,
      () => ({
        name: 'foreign enterprise (403)',
        method: 'GET',
        path: '/api/v2/people',
        headers: { ...v2(), 'x-enterprise-id': fixture.otherEnterpriseId },
      }),
    ],
    [
      2,
      () => ({
        name: 'foreign record (403)',
        method: 'GET',
        path: `/api/v2/people/${fixture.personIds[9] ?? ''}`,
        headers: v2(),
      }),
    ],
    [
      2,
      () => ({
        name: 'other user',
        method: 'GET',
        path: '/api/v2/people',
        headers: { authorization: `Bearer ${otherToken}`, 'x-enterprise-id': fixture.otherEnterpriseId },
      }),
    ],
    [2, () => ({ name: 'no token (401)', method: 'GET', path: '/api/v2/leads', headers: {} })],
    [2, () => ({ name: 'unknown route (404)', method: 'GET', path: `/api/v2/nothing/${randomUUID()}`, headers: v2() })],
    [1, () => ({ name: 'delete (403)', method: 'DELETE', path: `/api/v2/leads/${pick(leads)}`, headers: v2() })],
    [
      2,
      () => ({
        name: 'webhook A signed',
        method: 'POST',
        path: '/api/webhooks/signprovider-a',
        headers: { ...json, 'x-signprovidera-signature': signature },
        body: webhookBody,
      }),
    ],
    [
      1,
      () => ({
        name: 'webhook A unsigned (401)',
        method: 'POST',
        path: '/api/webhooks/signprovider-a',
        headers: json,
        body: webhookBody,
      }),
    ],
    [1, () => ({ name: 'login', method: 'POST', path: '/api/v2/login', headers: json, body: JSON.stringify(USER) })],
    [1, () => ({ name: 'health', method: 'GET', path: '/health', headers: {} })],
  ];
  const total = mix.reduce((sum, [weight]) => sum + weight, 0);
  return () => {
    let roll = Math.random() * total;
    for (const [weight, make] of mix) {
      roll -= weight;
      if (roll <= 0) return make();
    }
    return (mix[0] as [number, () => Call])[1]();
  };
}

function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

function readIfPresent(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Established TCP connections whose local port is the server's (its clients), from /proc/net/tcp*. */
function establishedTo(port: number): number {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = readIfPresent(file);
    for (const line of text.split('\n').slice(1)) {
      const parts = line.trim().split(/\s+/);
      if (parts[1]?.endsWith(`:${hex}`) && parts[3] === '01') n += 1;
    }
  }
  return n;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

async function main(): Promise<void> {
  const { doc, fixture } = fixtureDocument();
  process.stdout.write(
    `Soak: ${DURATION_S} s of mixed traffic, ${CONCURRENCY} concurrent clients, a sample every ${SAMPLE_S} s, ` +
      `database: ${SERVER_URL ? 'PostgreSQL (a database of its own)' : 'embedded'}.\n`,
  );
  const database = await prepareDatabase(doc);
  let server: RunningServer | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let failed = false;
  try {
    server = await startServer(
      'soak',
      join(ROOT, 'dist/src/main.js'),
      {
        ...database.env,
        APP_KEY,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '1000000',
        SIGNPROVIDER_A_SECRET: SECRET_A,
      },
      startScriptNodeFlags(ROOT),
    );
    const base = server.url;
    const port = Number(new URL(base).port);
    const pid = server.process.pid ?? 0;
    let serverLog = '';
    server.process.stderr?.on('data', (chunk: Buffer) => (serverLog = (serverLog + chunk.toString()).slice(-20_000)));
    server.process.stdout?.on('data', (chunk: Buffer) => (serverLog = (serverLog + chunk.toString()).slice(-20_000)));

    const login = async (user: { email: string; password: string }) => {
      const res = await send(
        agent,
        base,
        'POST',
        '/api/v2/login',
        { 'content-type': 'application/json' },
        JSON.stringify(user),
      );
      return (JSON.parse(res.body) as { access_token: string }).access_token;
    };
    const tokens = [await login(USER)];
    const otherToken = await login(OTHER_USER);
    const leads = [...fixture.leadIds];
    const next = traffic(fixture, () => tokens[Math.floor(Math.random() * tokens.length)] ?? '', otherToken, leads);

    const dbClient = database.databaseName && SERVER_URL ? new pg.Client({ connectionString: SERVER_URL }) : undefined;
    await dbClient?.connect();
    const byStatus = new Map<number, number>();
    const byName = new Map<string, { count: number; fivexx: number }>();
    const fiveHundreds: string[] = [];
    let latencies: number[] = [];
    let intervalRequests = 0;
    let total = 0;
    let clientErrors = 0;
    const samples: Sample[] = [];
    const started = Date.now();
    const stopAt = started + DURATION_S * 1000;

    const sample = async () => {
      const sorted = [...latencies].sort((a, b) => a - b);
      const dbConnections = dbClient
        ? Number(
            (
              await dbClient.query<{ n: number }>(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`,
                [database.databaseName],
              )
            ).rows[0]?.n ?? 0,
          )
        : null;
      const s: Sample = {
        atSeconds: Math.round((Date.now() - started) / 1000),
        rssMiB: Math.round(rssMiB(pid) * 10) / 10,
        openFds: openFds(pid),
        clientConnections: establishedTo(port),
        databaseConnections: dbConnections,
        requests: total,
        requestsPerSecond: Math.round(intervalRequests / SAMPLE_S),
        p50ms: Math.round(percentile(sorted, 50) * 10) / 10,
        p99ms: Math.round(percentile(sorted, 99) * 10) / 10,
        errors5xx: fiveHundreds.length,
      };
      samples.push(s);
      latencies = [];
      intervalRequests = 0;
      process.stdout.write(
        `${String(s.atSeconds).padStart(5)} s  rss ${s.rssMiB.toFixed(1).padStart(6)} MiB  fds ${String(s.openFds).padStart(4)}  ` +
          `clients ${String(s.clientConnections).padStart(3)}  db ${s.databaseConnections ?? '-'}  ` +
          `${String(s.requestsPerSecond).padStart(5)} req/s  p50 ${s.p50ms} ms  p99 ${s.p99ms} ms  total ${s.requests}  5xx ${s.errors5xx}\n`,
      );
    };
    await sample();
    const sampler = setInterval(() => void sample(), SAMPLE_S * 1000);

    const worker = async () => {
      while (Date.now() < stopAt && server?.process.exitCode === null) {
        const call = next();
        const t0 = performance.now();
        try {
          const res = await send(agent, base, call.method, call.path, call.headers, call.body);
          latencies.push(performance.now() - t0);
          byStatus.set(res.status, (byStatus.get(res.status) ?? 0) + 1);
          const stat = byName.get(call.name) ?? { count: 0, fivexx: 0 };
          stat.count += 1;
          if (res.status >= 500) {
            stat.fivexx += 1;
            if (fiveHundreds.length < 20)
              fiveHundreds.push(`${call.method} ${call.path} -> ${res.status} ${res.body.slice(0, 200)}`);
          }
          byName.set(call.name, stat);
          if (res.status === 201 && call.path.endsWith('/leads')) {
            const id = (JSON.parse(res.body) as { data: { id?: string; ID?: string } }).data;
            const created = id.id ?? id.ID;
            if (created) leads[Math.floor(Math.random() * leads.length)] = created;
          }
          if (call.name === 'login' && res.status === 200 && tokens.length < 20) {
            tokens.push((JSON.parse(res.body) as { access_token: string }).access_token);
          }
        } catch {
          clientErrors += 1;
        }
        total += 1;
        intervalRequests += 1;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    clearInterval(sampler);
    await sample();
    await dbClient?.end();

    const crashed = server.process.exitCode !== null;
    const stopStarted = Date.now();
    await server.stop();
    const stopMs = Date.now() - stopStarted;
    const exitCode = server.process.exitCode;

    // Memory trend over the second half (after warm-up), in MiB per minute.
    const secondHalf = samples
      .filter((s) => s.atSeconds >= DURATION_S / 2)
      .map((s) => [s.atSeconds / 60, s.rssMiB] as [number, number]);
    const afterWarmUp = samples.find((s) => s.atSeconds >= Math.min(60, DURATION_S / 5)) ?? samples[0];
    const last = samples[samples.length - 1];
    const summary = {
      durationSeconds: DURATION_S,
      concurrency: CONCURRENCY,
      database: SERVER_URL ? 'postgresql' : 'embedded',
      requests: total,
      requestsPerSecond: Math.round(total / DURATION_S),
      byStatus: Object.fromEntries([...byStatus.entries()].sort(([a], [b]) => a - b)),
      clientErrors,
      errors5xx: fiveHundreds.length,
      crashed,
      shutdown: { exitCode, milliseconds: stopMs },
      rssMiB: {
        start: samples[0]?.rssMiB,
        afterWarmUp: afterWarmUp?.rssMiB,
        end: last?.rssMiB,
        max: Math.max(...samples.map((s) => s.rssMiB)),
        secondHalfSlopeMiBPerMinute: Math.round(slope(secondHalf) * 100) / 100,
      },
      openFds: { min: Math.min(...samples.map((s) => s.openFds)), max: Math.max(...samples.map((s) => s.openFds)) },
      clientConnections: {
        min: Math.min(...samples.map((s) => s.clientConnections)),
        max: Math.max(...samples.map((s) => s.clientConnections)),
      },
      databaseConnections: dbClient
        ? {
            min: Math.min(...samples.map((s) => s.databaseConnections ?? 0)),
            max: Math.max(...samples.map((s) => s.databaseConnections ?? 0)),
          }
        : 'embedded (in the service process, one connection)',
      samples,
      firstErrors: fiveHundreds,
    };
    writeFileSync(REPORT, `${JSON.stringify(summary, null, 2)}\n`);
    const { samples: _samples, ...brief } = summary;
    process.stdout.write(`\n${JSON.stringify(brief, null, 2)}\nReport: ${REPORT}\n`);
    if (fiveHundreds.length > 0 || crashed || exitCode !== 0) {
      failed = true;
      process.stderr.write(
        `Soak failed: ${fiveHundreds.length} 5xx, crashed: ${crashed}, exit ${exitCode}\n${serverLog.slice(-4000)}\n`,
      );
    }
  } finally {
    agent.destroy();
    if (server && server.process.exitCode === null) await server.stop();
    await database.cleanup();
  }
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`Soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
