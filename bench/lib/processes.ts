import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';

export interface RunningServer {
  name: string;
  url: string;
  process: ChildProcess;
  /** Highest VmRSS seen by `sampleRss` since the last reset, in MiB. */
  peakRssMiB: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Resident set of a process, from /proc (Linux), in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

/** CPU time the process has used (user + system), from /proc (Linux), in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU time used so far by every process whose command is `postgres` (the database server's
 * postmaster and backends on this machine), by pid, in milliseconds. A backend started between two
 * readings counts from zero; one that ended is missing from the second and its time is lost, so
 * compare readings around a stretch where the pools' connections stay open.
 */
export function databaseCpuMs(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.includes('(postgres)')) continue;
      byPid.set(pid, cpuMs(pid));
    } catch {
      // The process ended while the list was read.
    }
  }
  return byPid;
}

/** Database CPU used between two `databaseCpuMs` readings, in milliseconds. */
export function databaseCpuSince(before: ReadonlyMap<number, number>): number {
  let used = 0;
  for (const [pid, now] of databaseCpuMs()) used += now - (before.get(pid) ?? 0);
  return used;
}

/** CPU time the process has used in user and in system (kernel) mode, from /proc (Linux), in milliseconds. */
export function cpuSplitMs(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: (Number(fields[11]) * 1000) / CLOCK_TICKS_PER_SECOND,
    system: (Number(fields[12]) * 1000) / CLOCK_TICKS_PER_SECOND,
  };
}

/** Linux's USER_HZ: /proc reports CPU time in these ticks (100 on every common platform). */
const CLOCK_TICKS_PER_SECOND = 100;

/** The process's own high-water mark of resident memory (VmHWM), in MiB. */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
  return kb ? Number(kb) / 1024 : 0;
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output()}`);
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`server did not become healthy:\n${output()}`);
}

/**
 * The Node flags `npm start` gives the service (package.json's start script, `node <flags>
 * <script>`), so the benchmarks run it exactly as an operator does.
 */
export function startScriptNodeFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  // `exec node ...`: the shell npm runs the script in becomes node (signals reach it).
  const words = pkg.scripts.start
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${pkg.scripts.start}`);
  return words.slice(1, -1);
}

/**
 * The node flags of the start script of the checkout `main` (its `dist/src/main.js`) belongs
 * to: a previous build runs as it was shipped.
 */
export function startFlagsOf(main: string): string[] {
  const root = resolve(dirname(main), '../..');
  try {
    return startScriptNodeFlags(root);
  } catch (error) {
    throw new Error(
      `${main} should be <checkout>/dist/src/main.js with an npm start script running node (BENCH_PREVIOUS_MAIN)`,
      { cause: error },
    );
  }
}

/**
 * The node flags that make a process write a V8 CPU profile into `<dir>/<name>` (node creates the
 * folder) when it exits; none without a folder. Read one with `dist/bench/profile-summary.js`.
 */
export function cpuProfileFlags(dir: string | undefined, name = ''): string[] {
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(resolve(dir), name)}`] : [];
}

/** Starts `node [flags] <script>` with the given environment and waits for its /health. */
export async function startServer(
  name: string,
  script: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
  node: string = process.execPath,
): Promise<RunningServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(node, [...nodeFlags, script], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  await waitForHealth(url, child, () => output);
  return {
    name,
    url,
    process: child,
    peakRssMiB: 0,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The service settings a run compares: each `BENCH_<NAME>` that is set, passed to the service as
 * `<NAME>` (the service's own defaults otherwise).
 */
export function serviceSettingsFromBench(names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = process.env[`BENCH_${name}`];
      return value === undefined ? [] : [[name, value]];
    }),
  );
}
