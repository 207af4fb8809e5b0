import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../helpers/free-port.mjs';
import { childPids } from '../helpers/process-tree.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

describe('WEB_CONCURRENCY (scale-out on one machine)', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await acquireTestDatabase();
  });
  afterAll(async () => {
    await database.release();
  });

  it('starts N workers on one port, answers through them, and stops them all on SIGTERM', async () => {
    // A random port could be one a test database server already listens on (ephemeral range).
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        ...database.env,
        DATABASE_POOL_MAX: '1',
        APP_KEY: TEST_APP_KEY,
        PORT: String(port),
        HOST: '127.0.0.1',
        WEB_CONCURRENCY: '2',
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      let healthy = false;
      // Two workers start at once; bounded far above a quiet start, for a machine shared with other suites.
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline && !healthy) {
        healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy).toBe(true);
      for (let i = 0; i < 100 && childPids(child.pid ?? 0).length < 2; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(childPids(child.pid ?? 0)).toHaveLength(2);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status)),
      );
      expect(answers).toEqual(Array(20).fill(200));
      // Worker 1 prints the banner after its own listen; worker 2 may have answered first.
      for (let i = 0; i < 100 && !output.includes('(2 workers)'); i++) await new Promise((r) => setTimeout(r, 100));
      expect(output).toContain('(2 workers)');
    } finally {
      const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 180_000);
});
