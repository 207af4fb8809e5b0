import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from './free-port.mjs';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly base: string;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  readonly exited: Promise<number | null>;
  /** SIGTERM (or the given signal), then waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ExitedProcess {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function spawnService(env: Record<string, string>, port: number): ChildProcess {
  return spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      TZ: 'UTC',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts `dist/src/main.js` (as `npm start` does) and resolves once /health answers 200. */
export async function startService(env: Record<string, string>, timeoutMs = 60_000): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawnService(env, port);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gone) throw new Error(`The service exited before it answered /health:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The service did not answer /health in time:\n${output}`);
    }
    const up = await fetch(`${base}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    pid: child.pid ?? 0,
    port,
    base,
    output: () => output,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the service expecting it to stop by itself (a refusal); resolves with its exit and output. */
export async function runServiceToExit(env: Record<string, string>, timeoutMs = 60_000): Promise<ExitedProcess> {
  const child = spawnService(env, await freePort());
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exitWithOutput(child);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** How long output may still arrive after the process has exited (a child of it holding the pipes aside). */
const OUTPUT_AFTER_EXIT_MS = 2_000;

/**
 * The exit code, once the process's output has been read: 'exit' can come before the last
 * chunk written to a pipe has been read (a refusal printed just before exiting), 'close' after
 * it. A child of the process still holding the pipes delays 'close': then OUTPUT_AFTER_EXIT_MS
 * after 'exit' at the latest.
 */
function exitWithOutput(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    child.once('close', (code: number | null) => done(code));
    child.once('exit', (code) => setTimeout(() => done(code), OUTPUT_AFTER_EXIT_MS).unref());
  });
}

/** Logs in with a password and returns v2 headers for the given enterprise. */
export async function v2Headers(
  base: string,
  email: string,
  password: string,
  enterpriseId: string,
): Promise<Record<string, string>> {
  const login = await fetch(`${base}/api/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`login answered ${login.status}`);
  const { access_token: token } = (await login.json()) as { access_token: string };
  return { authorization: `Bearer ${token}`, 'x-enterprise-id': enterpriseId, accept: 'application/json' };
}

/** GET with headers; status and parsed body. */
export async function getJson(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.json() };
}
