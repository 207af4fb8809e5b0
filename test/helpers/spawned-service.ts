import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { importFixture, type ImportDocument } from './fixtures.js';
import { TEST_APP_KEY } from './test-app.js';
import type { TestDatabase } from './test-database.js';

export const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

/** The service as an operator runs it (dist/src/main.js in a process of its own), output kept. */
export class ServiceProcess {
  output = '';
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)));
  }

  /** `node [nodeArgs] dist/src/main.js` with only PATH and the given variables. */
  static start(env: Record<string, string>, nodeArgs: string[] = []): ServiceProcess {
    const child = spawn(process.execPath, [...nodeArgs, MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServiceProcess(child);
  }

  /** Polls the URL until it answers 200; fails with the output so far. */
  waitFor(url: string): Promise<void> {
    return waitForOk(url, this.child, () => this.output);
  }

  /** SIGTERM, then the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  /** Every line printed so far, each parsed as JSON (throws on the first line that is not). */
  jsonLines(): Record<string, unknown>[] {
    return this.output
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          throw new Error(`not a JSON line: ${line}`);
        }
      });
  }
}

/**
 * Polls the URL until it answers 200 while the process runs; fails with its output. The bound
 * (2 minutes by default) is far above a start on a quiet machine (seconds): it only has to hold
 * when the machine is shared with other suites, and costs nothing when the start succeeds.
 */
export async function waitForOk(
  url: string,
  child: ChildProcess,
  output: () => string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200:\n${output()}`);
}

/** The variables a spawned service needs for the test database. */
export function serviceEnv(
  database: TestDatabase,
  port: number,
  env: Record<string, string> = {},
): Record<string, string> {
  return {
    ...database.env,
    DATABASE_POOL_MAX: '1',
    APP_KEY: TEST_APP_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...env,
  };
}

/** Loads an import document into the test database (before the service starts). */
export async function loadFixture(database: TestDatabase, doc: ImportDocument): Promise<void> {
  const dataSource = await openDataSource(database);
  try {
    const key = parseAppKey(TEST_APP_KEY);
    if (!key) throw new Error('bad test key');
    await importFixture({ dataSource, cipher: new FieldCipher([key]) }, doc);
  } finally {
    await dataSource.destroy();
  }
}

/** POST /api/v2/login; the access token. */
export async function login(base: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${base}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
