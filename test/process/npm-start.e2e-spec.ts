import { execFileSync, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort } from '../helpers/free-port.mjs';
import { descendants } from '../helpers/process-tree.js';
import { serviceEnv, waitForOk } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** The command line of a process, or undefined once it is gone. */
function commandLine(pid: number): string | undefined {
  try {
    return (
      execFileSync('ps', ['-o', 'args=', '-p', String(pid)])
        .toString()
        .trim() || undefined
    );
  } catch {
    return undefined;
  }
}

describe('npm start and SIGTERM', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await acquireTestDatabase();
  });
  afterAll(async () => {
    await database.release();
  });

  it('passes SIGTERM to node: a graceful stop, and no node process left behind', async () => {
    const port = await freePort();
    // --ignore-scripts skips only `prestart` (the build: dist is built, and rebuilding it while
    // other suites run from it is not this test's business); the start script itself runs.
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: ROOT,
      // With a PATH (as every shell and supervisor gives), npm puts node_modules/.bin first on it, so
      // the start script runs on the project's own Node; without one it would leave it unset.
      env: {
        ...serviceEnv(database, port, { LOG_LEVEL: 'info' }),
        HOME: process.env.HOME ?? '/tmp',
        PATH: process.env.PATH ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const npmExited = new Promise<number | null>((done) => npm.once('exit', (code) => done(code)));
    let nodePids: number[] = [];
    try {
      await waitForOk(`http://127.0.0.1:${port}/health/live`, npm, () => output);
      // The node process itself (not a shell whose command line names it).
      nodePids = descendants(npm.pid ?? 0).filter((pid) =>
        /^(\S*\/)?node .*dist\/src\/main\.js$/.test(commandLine(pid) ?? ''),
      );
      expect(nodePids).toHaveLength(1);

      npm.kill('SIGTERM');
      expect(await npmExited).toBe(0);
      for (let i = 0; i < 100 && nodePids.some((pid) => commandLine(pid) !== undefined); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(nodePids.map(commandLine)).toEqual([undefined]);
      expect(output).toContain('"msg":"SIGTERM received: finishing in-flight requests, then stopping."');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      for (const pid of nodePids) if (commandLine(pid) !== undefined) process.kill(pid, 'SIGKILL');
    }
  });
});
