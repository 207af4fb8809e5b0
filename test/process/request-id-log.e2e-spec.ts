import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../helpers/free-port.mjs';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

/** The id an answer carries is the one its log line carries, so support can find the request. */
describe('X-Request-Id names the log line of the request', () => {
  let database: TestDatabase;
  let child: ChildProcess;
  let output = '';
  let base = '';

  beforeAll(async () => {
    database = await acquireTestDatabase();
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
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (let i = 0; i < 200; i++) {
      if (
        await fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return;
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

  it('logs the echoed client id, and the generated id that replaced a hostile one', async () => {
    const sane = await fetch(`${base}/api/v2/leads`, { headers: { 'x-request-id': 'support-case-42' } });
    const hostileId = `h${'x'.repeat(300)}`;
    const hostile = await fetch(`${base}/api/v2/leads`, { headers: { 'x-request-id': hostileId } });
    expect(sane.headers.get('x-request-id')).toBe('support-case-42');
    const generated = hostile.headers.get('x-request-id') ?? '';
    expect(generated).toMatch(/^[0-9a-f-]{36}$/);

    const lines = () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string; req?: { id?: string } });
    for (let i = 0; i < 50 && lines().filter((l) => l.msg === 'request completed').length < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const logged = lines()
      .filter((line) => line.msg === 'request completed')
      .map((line) => line.req?.id);
    expect(logged).toContain('support-case-42');
    expect(logged).toContain(generated);
    expect(output).not.toContain(hostileId);
  });
});
