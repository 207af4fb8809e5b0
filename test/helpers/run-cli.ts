import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const CLI = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

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
