import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { invokeCli } from '../../src/cli/invoke-cli.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The variables the invocation sees, and no others (besides TZ=UTC). */
  readonly env?: Record<string, string>;
  /** What standard input holds (nothing when left out). */
  readonly stdin?: string;
}

const CLI = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

/** A stream that keeps what is written to it, as text. */
function collector(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString() };
}

/**
 * Runs the CLI's code in this process, as the binary would with the given arguments, standard
 * input and environment: the exit status it would end with and what it wrote to each output.
 * For everything but what the process boundary itself does (the binary's exit, a terminal,
 * signals): see runCliProcess for that.
 */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const stdin = Readable.from([Buffer.from(options.stdin ?? '')]);
  const code = await invokeCli(
    args,
    { stdin, stdout: stdout.stream, stderr: stderr.stream },
    { TZ: 'UTC', ...options.env },
  );
  // Lets the last 'data' events run before the text is read.
  await new Promise((done) => setImmediate(done));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs the compiled CLI (`npm run cli` without the build step) as an operator would. */
export function runCliProcess(args: string[], env: Record<string, string>, stdin?: string): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}
