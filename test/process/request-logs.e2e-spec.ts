import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { importFixture, tenantDocument } from '../helpers/fixtures.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { freePort } from '../helpers/free-port.mjs';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');
const WEBHOOK_SECRET = 'request-log-webhook-secret';

/** The service as an operator runs it, at LOG_LEVEL=info, with its standard output kept. */
describe('request logs (JSON, request id, nothing secret)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let child: ChildProcess;
  let output = '';
  let base = '';
  const { doc, tenant } = tenantDocument();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
    const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
    await importFixture({ dataSource, cipher }, doc);
    await dataSource.destroy();

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        ...database.env,
        DATABASE_POOL_MAX: '1',
        APP_KEY: TEST_APP_KEY,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SIGNPROVIDER_A_SECRET: WEBHOOK_SECRET,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (let i = 0; i < 200; i++) {
      const up = await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the service did not start:\n${output}`);
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await database.release();
  });

  it('logs each request as JSON with its request id and redacts tokens, passwords and signatures', async () => {
    const login = await fetch(`${base}/api/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'trace-login-1' },
      body: JSON.stringify({ email: tenant.user.email, password: tenant.user.password }),
    });
    const { access_token: token } = (await login.json()) as { access_token: string };
    await fetch(`${base}/api/v2/enterprises?secret=query-secret`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-list-2' },
    });
    const body = JSON.stringify({ documentId: 'no-such-document', event: 'viewed' });
    const signature = createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
    await fetch(`${base}/api/webhooks/signprovider-a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signprovidera-signature': signature },
      body,
    });
    await new Promise((r) => setTimeout(r, 300));

    const lines = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { req?: { id?: string; url?: string } });
    const requestIds = lines.map((line) => line.req?.id);
    expect(requestIds).toContain('trace-login-1');
    expect(requestIds).toContain('trace-list-2');
    expect(lines.some((line) => line.req?.url === '/api/v2/enterprises')).toBe(true);

    for (const secret of [
      token,
      token.split('|')[1] ?? token,
      tenant.user.password,
      signature,
      WEBHOOK_SECRET,
      'query-secret',
    ]) {
      expect(output).not.toContain(secret);
    }
  });
});
