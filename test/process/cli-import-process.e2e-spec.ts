import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const CLI = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

type Process = { pid: number; args: string[] };

/** The processes whose parent is `pid`, with their command lines. */
function childrenOf(pid: number): Process[] {
  const found: Process[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== pid) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(entry), args });
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

/**
 * The child of `pid` once it runs its own command line: between fork and exec a new process
 * still shows its parent's (`parentArgs`), so one that does is not it yet.
 */
function startedChild(pid: number, parentArgs: string): Process | undefined {
  return childrenOf(pid).find(({ args }) => args.includes('import') && args.join('\0') !== parentArgs);
}

function commandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '');
}

/** The child process `pid` started, looked for every 50 ms. */
async function childOf(pid: number, output: () => string): Promise<Process> {
  const parentArgs = commandLine(pid);
  for (let tries = 0; tries < 200; tries++) {
    const child = startedChild(pid, parentArgs);
    if (child) return child;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`no child process of ${pid}; its output:\n${output()}`);
}

/**
 * The child process `pid` started, looked for without yielding, so the caller can act within a
 * moment of its start (for a signal test, while the parent may still be inside spawn).
 */
function childJustStarted(pid: number): Process {
  const parentArgs = commandLine(pid);
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const child = startedChild(pid, parentArgs);
    if (child) return child;
  }
  throw new Error(`no child process of ${pid} within 10 s`);
}

async function gone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 100; tries++) {
    if (!readdirSync('/proc').includes(String(pid))) return true;
    await new Promise((done) => setTimeout(done, 20));
  }
  return false;
}

describe('the import command as a process', () => {
  let database: TestDatabase;
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-import-process-'));

  beforeAll(async () => {
    database = await acquireTestDatabase();
  });
  const started: ChildProcess[] = [];
  afterAll(async () => {
    // An import left waiting for its pipe by a failed test: ended as an operator would (the CLI
    // passes the signal on to its child), not left to hold a database session.
    for (const cli of started) if (cli.exitCode === null && cli.signalCode === null) cli.kill('SIGTERM');
    await database.release();
  });

  /** Starts `import` of a named pipe: the import waits for the pipe's text until the test writes it. */
  function startImport(
    name: string,
    nodeFlags: readonly string[] = [],
  ): { cli: ChildProcess; pipe: string; output: () => string } {
    const pipe = join(dir, `${name}.json`);
    execFileSync('mkfifo', [pipe]);
    const cli = spawn(process.execPath, [...nodeFlags, CLI, 'import', pipe], {
      env: { PATH: process.env.PATH ?? '', TZ: 'UTC', APP_KEY: TEST_APP_KEY, ...database.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(cli);
    let output = '';
    cli.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    cli.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return { cli, pipe, output: () => output };
  }

  it('runs in a child Node process with a larger young generation and a bounded heap growth, and ends with its status', async () => {
    const { cli, pipe, output } = startImport('flags');
    const child = await childOf(cli.pid as number, output);
    expect(child.args).toEqual(
      expect.arrayContaining(['--max-semi-space-size=32', '--heap-growing-percent=150', CLI, 'import', pipe]),
    );
    // Opening the pipe waits for its reader: not on this thread, which must go on.
    await writeFile(pipe, '{"people":[]}');
    const [code] = (await once(cli, 'exit')) as [number | null];
    expect(output()).toContain('people: 0 (0 created, 0 updated, 0 unchanged)');
    expect(code).toBe(0);
  });

  it("keeps a flag the operator gave and adds only the missing one to the child's", async () => {
    const { cli, pipe, output } = startImport('one-flag', ['--heap-growing-percent=120']);
    const child = await childOf(cli.pid as number, output);
    expect(child.args).toEqual(expect.arrayContaining(['--heap-growing-percent=120', '--max-semi-space-size=32']));
    expect(child.args).not.toContain('--heap-growing-percent=150');
    await writeFile(pipe, '{"people":[]}');
    const [code] = (await once(cli, 'exit')) as [number | null];
    expect(code).toBe(0);
  });

  it('runs in the first process when every flag is given', async () => {
    const { cli, pipe, output } = startImport('all-flags', ['--heap-growing-percent=120', '--max-semi-space-size=24']);
    // Until the pipe is written the import waits in the process that was started.
    await new Promise((done) => setTimeout(done, 1_000));
    expect(childrenOf(cli.pid as number)).toEqual([]);
    await writeFile(pipe, '{"people":[]}');
    const [code] = (await once(cli, 'exit')) as [number | null];
    expect(output()).toContain('people: 0 (0 created, 0 updated, 0 unchanged)');
    expect(code).toBe(0);
  });

  it('passes a signal on to the child process and ends by it', async () => {
    const { cli, output } = startImport('signal');
    const child = await childOf(cli.pid as number, output);
    cli.kill('SIGTERM');
    const [code, signal] = (await once(cli, 'exit')) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await gone(child.pid)).toBe(true);
  });

  it('passes on a signal that arrives while the child is being started, leaving no import running', async () => {
    // The child runs its own program a moment before spawn returns in the parent; a signal in
    // that moment once ended the parent alone and left the child holding a database session.
    // Signalled as soon as the child shows, some of twenty starts land in it.
    const survivors: number[] = [];
    for (let i = 0; i < 20; i++) {
      const { cli } = startImport(`early-signal-${i}`);
      const child = childJustStarted(cli.pid as number);
      cli.kill('SIGTERM');
      const [code, signal] = (await once(cli, 'exit')) as [number | null, NodeJS.Signals | null];
      expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
      if (!(await gone(child.pid))) {
        survivors.push(child.pid);
        process.kill(child.pid, 'SIGKILL');
      }
    }
    expect(survivors).toEqual([]);
  });
});
