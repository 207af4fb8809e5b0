import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

interface Instance {
  child: ChildProcess;
  base: string;
  output: () => string;
}

/**
 * `npm start` as an operator runs it, on the given database and a port of its own. `env`: the test
 * database's variables (DATABASE_URL, and DATABASE_PREPARED_STATEMENTS=false through PgBouncer).
 */
async function startInstance(env: Record<string, string>): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      ...env,
      DATABASE_POOL_MAX: '5',
      APP_KEY: TEST_APP_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const up = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, base, output: () => output };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error(`the service did not start:\n${output}`);
}

async function stop(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.child.exitCode !== null) return;
  const exited = new Promise((done) => instance.child.once('exit', done));
  instance.child.kill('SIGTERM');
  await exited;
}

/**
 * Two running instances on one PostgreSQL database: a key is claimed in the database, so the
 * same key sent to both at once still writes once. Needs DATABASE_URL (several processes on the
 * embedded database would share its single backend).
 */
describe('Idempotency-Key across two instances on one database', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let first: Instance | undefined;
  let second: Instance | undefined;
  const { doc, tenant } = tenantDocument();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
    const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
    await importFixture({ dataSource, cipher }, doc);
    [first, second] = await Promise.all([startInstance(database.env), startInstance(database.env)]);
  });
  afterAll(async () => {
    await Promise.all([stop(first), stop(second)]);
    await dataSource.destroy();
    await database.release();
  });

  it('20 concurrent requests with one key, split over both instances, create exactly one lead', async () => {
    const login = await fetch(`${first?.base ?? ''}/api/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: tenant.user.email, password: tenant.user.password }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const key = randomUUID();
    const send = (base: string) =>
      fetch(`${base}/api/v2/leads`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'x-enterprise-id': tenant.enterpriseId,
          'idempotency-key': key,
        },
        body: JSON.stringify({ title: 'Two instances', person: 'Vic' }),
      }).then(async (res) => ({
        status: res.status,
        replayed: res.headers.get('idempotent-replayed'),
        body: await res.text(),
      }));
    const bases = [first?.base ?? '', second?.base ?? ''];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(bases[i % 2] ?? '')));

    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.replayed === 'true')).toHaveLength(19);
    const leads = await selectRows<{ id: string }>(
      dataSource,
      `SELECT id FROM leads WHERE enterprise_id = $1 AND title = 'Two instances'`,
      [tenant.enterpriseId],
    );
    expect(leads).toHaveLength(1);
    expect(JSON.parse(answers[0]?.body ?? '{}')).toMatchObject({ data: { id: leads[0]?.id } });
  });

  it('a token revoked through one instance answers 401 on the other at once', async () => {
    const login = await fetch(`${first?.base ?? ''}/api/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: tenant.user.email, password: tenant.user.password }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    const enterprises = (base: string) =>
      fetch(`${base}/api/v2/enterprises`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await enterprises(second?.base ?? '')).toBe(200);
    const logout = await fetch(`${first?.base ?? ''}/api/v1/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(logout.status).toBe(204);
    expect(await enterprises(second?.base ?? '')).toBe(401);
    expect(await enterprises(first?.base ?? '')).toBe(401);
  });
});
