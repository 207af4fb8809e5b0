import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { LOCK_FILE, type LockRecord } from '../../src/database/data-dir-lock.js';
import { runServiceToExit } from '../helpers/service-process.js';

const LOCK_MODULE = resolve(import.meta.dirname, '../../dist/src/database/data-dir-lock.js');

interface Contender {
  readonly pid: number;
  /** Resolves once it waits for the go file (a contender of a race). */
  readonly ready: Promise<void>;
  /** The first line it printed after that: `acquired` or `refused: <message>`. */
  readonly outcome: Promise<string>;
  readonly exited: Promise<number | null>;
  /** Ends its standard input: a contender holding until told releases the lock then. */
  release(): void;
  kill(signal: NodeJS.Signals): void;
}

interface ContenderOptions {
  readonly command?: string;
  readonly exitWithoutRelease?: boolean;
  /** Waits for this file to exist before taking the lock: contenders of a race all start at once. */
  readonly goFile?: string;
}

/**
 * Another process that takes DATA_DIR as a CLI command would, holds it `holdMs` (or, with
 * `'until released'`, until its standard input ends), then releases it.
 */
function contender(dataDir: string, holdMs: number | 'until released', options: ContenderOptions = {}): Contender {
  const { command = 'import', exitWithoutRelease = false, goFile } = options;
  const script = `
    import { existsSync } from 'node:fs';
    import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
    const goFile = ${JSON.stringify(goFile ?? null)};
    if (goFile !== null) {
      console.log('ready');
      while (!existsSync(goFile)) {} // the race starts the moment the file appears
    }
    let lock;
    try {
      lock = acquireDataDirLock(${JSON.stringify(dataDir)}, { role: 'cli', command: ${JSON.stringify(command)} });
    } catch (error) {
      console.log('refused: ' + error.message);
      process.exit(1);
    }
    console.log('acquired');
    const done = () => {
      if (${exitWithoutRelease}) process.exit(3);
      lock.release();
      process.exit(0);
    };
    if (${JSON.stringify(holdMs)} === 'until released') {
      process.stdin.resume();
      process.stdin.on('end', done);
    } else {
      setTimeout(done, ${holdMs === 'until released' ? 0 : holdMs});
    }
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let stdout = '';
  const lines = (): string[] => stdout.split('\n').filter((line) => line !== 'ready');
  let onReady = (): void => {};
  const ready = new Promise<void>((done) => (onReady = done));
  const outcome = new Promise<string>((done) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.startsWith('ready\n')) onReady();
      if (lines().length > 1) done(lines()[0] ?? '');
    });
    // 'close', not 'exit': a process may exit before its last output has been read from the
    // pipe, and a refused contender prints its message just before it exits.
    child.once('close', () => {
      onReady();
      done(lines()[0] ?? '');
    });
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    pid: child.pid ?? 0,
    ready,
    outcome,
    exited,
    release: () => child.stdin.end(),
    kill: (signal) => child.kill(signal),
  };
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('exit', done));
  return child.pid ?? 0;
}

function writeLock(dataDir: string, record: Partial<LockRecord>): void {
  const full: LockRecord = {
    role: 'service',
    command: null,
    pid: 1,
    port: 3000,
    control: null,
    hostname: hostname(),
    processStart: null,
    startedAt: new Date().toISOString(),
    nonce: 'old',
    ...record,
  };
  writeFileSync(join(dataDir, LOCK_FILE), JSON.stringify(full));
}

/** Issue 13: the DATA_DIR lock between real processes. */
describe('DATA_DIR lock (real processes)', () => {
  const newDataDir = () => mkdtempSync(join(tmpdir(), 'finance-intake-lock-'));

  it('keeps the service from starting while a CLI command holds DATA_DIR, in one line', async () => {
    const dataDir = newDataDir();
    const holder = contender(dataDir, 60_000);
    expect(await holder.outcome).toBe('acquired');
    try {
      const service = await runServiceToExit({ DATA_DIR: dataDir });
      expect(service.code).toBe(1);
      expect(service.stdout).toBe('');
      // One line, JSON like everything the service prints.
      expect(service.stderr.endsWith('\n') && service.stderr.indexOf('\n') === service.stderr.length - 1).toBe(true);
      expect(JSON.parse(service.stderr)).toMatchObject({
        level: 60,
        msg:
          `The embedded database in ${dataDir} is in use by the CLI command "import" (pid ${holder.pid}): ` +
          'wait for it to finish and try again.',
      });
      // The refusal touched nothing: no database was created.
      expect(existsSync(join(dataDir, 'pgdata'))).toBe(false);
    } finally {
      holder.kill('SIGKILL');
      await holder.exited;
    }
  });

  it('removes the lock when the holder exits without releasing it, and a killed holder leaves a lock the next one takes', async () => {
    const dataDir = newDataDir();
    const exiting = contender(dataDir, 100, { exitWithoutRelease: true });
    expect(await exiting.outcome).toBe('acquired');
    expect(await exiting.exited).toBe(3);
    expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

    const killed = contender(dataDir, 60_000);
    expect(await killed.outcome).toBe('acquired');
    killed.kill('SIGKILL');
    await killed.exited;
    expect((JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockRecord).pid).toBe(killed.pid);
    const next = contender(dataDir, 10);
    expect(await next.outcome).toBe('acquired');
    await next.exited;
  });

  it('takes a lock whose pid now belongs to another process (a reused pid) for stale', async () => {
    const dataDir = newDataDir();
    // This very test process is alive, but it started at another time than the record says.
    writeLock(dataDir, { pid: process.pid, processStart: '1' });
    const next = contender(dataDir, 10);
    expect(await next.outcome).toBe('acquired');
    await next.exited;
  });

  it("respects another host's lock, saying how to clear it if that host is gone", async () => {
    const dataDir = newDataDir();
    writeLock(dataDir, { hostname: 'elsewhere', pid: await deadPid() });
    const next = contender(dataDir, 10);
    expect(await next.outcome).toMatch(
      new RegExp(
        `on host elsewhere\\): stop it there; if nothing runs there any more, delete ${join(dataDir, LOCK_FILE)}`,
      ),
    );
  });

  it('lets exactly one of many processes take over the same stale lock at once', async () => {
    for (let round = 0; round < 3; round++) {
      const dataDir = newDataDir();
      writeLock(dataDir, { pid: await deadPid() });
      const goFile = join(newDataDir(), 'go');
      const contenders = Array.from({ length: 8 }, () => contender(dataDir, 'until released', { goFile }));
      await Promise.all(contenders.map((c) => c.ready));
      writeFileSync(goFile, '');
      const outcomes = await Promise.all(contenders.map((c) => c.outcome));
      expect(outcomes.filter((o) => o === 'acquired')).toHaveLength(1);
      const winner = contenders[outcomes.indexOf('acquired')];
      for (const outcome of outcomes.filter((o) => o !== 'acquired')) {
        expect(outcome).toContain(`in use by the CLI command "import" (pid ${winner?.pid})`);
      }
      // The winner holds the lock until every other contender has been refused.
      for (const c of contenders) c.release();
      await Promise.all(contenders.map((c) => c.exited));
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);
      expect(existsSync(join(dataDir, `${LOCK_FILE}.takeover`))).toBe(false);
    }
  });
});
