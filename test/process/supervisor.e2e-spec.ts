import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../src/config/app-config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { verifyKeyCheck } from '../../src/crypto/key-check.js';
import { openDataSource } from '../../src/data-source.js';
import { DisposablePostgres } from '../helpers/disposable-postgres.js';
import { freePort } from '../helpers/free-port.mjs';
import { childPids, signalProcess } from '../helpers/process-tree.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');
/** As long as the operator's outage that once ended in a crash loop (about 30 s and more). */
const OUTAGE_MS = 40_000;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface Line {
  pid: number;
  level: number;
  msg: string;
  /** The worker a line of the primary is about. */
  worker?: number;
}

function startPrimary(env: Record<string, string>, port: number) {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      APP_KEY: TEST_APP_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'silent',
      DATABASE_POOL_MAX: '1',
      WEBHOOK_DATABASE_POOL_MAX: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const lines = () =>
    `${stdout}${stderr}`
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Line);
  return { child, exited, lines, stderr: () => stderr };
}

async function until(test: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await test()) return true;
    await sleep(100);
  }
  return false;
}

const status = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(5000) }).then(
    (r) => r.status,
    () => 0,
  );

/**
 * The primary of WEB_CONCURRENCY as a supervisor: a database outage with a worker dying meanwhile
 * never stops the healthy worker nor the primary, and serving is whole again by itself once the
 * database is back; a worker whose configuration is wrong stops everything at once, saying so.
 */
describe('the primary keeps serving through faults outside it', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('backs off while the database is down, never stops the healthy worker, and is whole again once it is back', async () => {
    const postgres = await DisposablePostgres.start();
    cleanups.push(() => postgres.close());
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const primary = startPrimary({ DATABASE_URL: postgres.url }, port);
    cleanups.push(async () => {
      primary.child.kill('SIGTERM');
      await primary.exited;
    });
    const pid = primary.child.pid ?? 0;
    expect(
      await until(
        async () =>
          (await status(`${base}/health/ready`)) === 200 &&
          childPids(pid).length === 2 &&
          primary.lines().some((line) => line.msg.startsWith('Finance Intake listening')),
        90_000,
      ),
    ).toBe(true);

    // The worker that printed the banner has listened; the other one is killed (listening yet or
    // not). Both are chosen before the outage, when both are there.
    const healthy = primary.lines().find((line) => line.msg.startsWith('Finance Intake listening'))?.pid;
    const doomed = childPids(pid).find((child) => child !== healthy);
    expect(healthy).toBeDefined();
    expect(doomed).toBeDefined();
    await postgres.stop();
    try {
      signalProcess(doomed, 'SIGKILL');
    } catch (error) {
      // It failed at start on its own once the database went away: the same death.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    // Once the primary has seen the death (a connection it handed the dying worker just before
    // is lost with it), the healthy worker answers every liveness probe and the primary stays.
    const deathSeen = () => primary.lines().some((line) => line.worker === doomed && line.msg.startsWith('Worker '));
    expect(await until(deathSeen, 10_000)).toBe(true);
    const answers: number[] = [];
    const outageEnds = Date.now() + OUTAGE_MS;
    while (Date.now() < outageEnds) {
      answers.push(await status(`${base}/health/live`));
      await sleep(250);
    }
    expect(answers.filter((code) => code !== 200)).toEqual([]);
    expect(primary.child.exitCode).toBeNull();
    expect(childPids(pid)).toContain(healthy);

    await postgres.resume();
    const back = Date.now();
    expect(
      await until(async () => childPids(pid).length === 2 && (await status(`${base}/health/ready`)) === 200, 30_000),
    ).toBe(true);
    // The longest back-off (10 s) and a worker's start, not a restart by hand.
    expect(Date.now() - back).toBeLessThan(25_000);
    const own = primary.lines().filter((line) => line.pid === pid);
    expect(own.filter((line) => line.level >= 60)).toEqual([]);
    expect(own.some((line) => /failed at start/.test(line.msg))).toBe(true);
    // Each phase above is bounded by its own wait; the test's limit only has to hold them all on
    // a loaded machine (about 60 s alone, over 240 s with two suites running at once).
  }, 420_000);

  it('stops with exit code 1 and one line when a worker cannot start with its configuration', async () => {
    const database: TestDatabase = await acquireTestDatabase();
    cleanups.push(() => database.release());
    // The data's key check is written with the test key; the workers start with another one.
    const dataSource = await openDataSource({ url: database.url, poolMax: 1 });
    await verifyKeyCheck(
      dataSource,
      new FieldCipher(loadConfig({ ...database.env, APP_KEY: TEST_APP_KEY }).encryptionKeys),
    );
    await dataSource.destroy();
    const started = Date.now();
    const primary = startPrimary(
      { ...database.env, APP_KEY: `base64:${Buffer.alloc(32, 3).toString('base64')}`, MIGRATIONS_RUN: 'false' },
      await freePort(),
    );
    const timer = setTimeout(() => primary.child.kill('SIGKILL'), 60_000);
    expect(await primary.exited).toBe(1);
    clearTimeout(timer);
    const pid = primary.child.pid;
    const fatal = primary.lines().filter((line) => line.pid === pid && line.level === 60);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.msg).toMatch(/cannot start with this configuration/);
    expect(primary.stderr()).toMatch(/APP_KEY/);
    // At once, not after a series of restarts.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 90_000);
});
