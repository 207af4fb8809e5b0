import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliRun } from './run-cli.js';

/** The operator guide, whose key rotation, backup and restore commands the process tests run. */
const OPERATOR_GUIDE = resolve(import.meta.dirname, '../../docs/operator-guide.md');
const CLI = resolve(import.meta.dirname, '../../dist/src/cli/main.js');

/**
 * The shell code of the operator guide's block between `<!-- name:start -->` and
 * `<!-- name:end -->`.
 */
export function guideBlock(name: string): string {
  const text = readFileSync(OPERATOR_GUIDE, 'utf8');
  const match = new RegExp(`<!-- ${name}:start -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`).exec(text);
  if (!match?.[1]) throw new Error(`docs/operator-guide.md has no block named ${name}`);
  return match[1];
}

/**
 * `npm run cli -- ...` and `npm run -s cli -- ...` as the guide writes them, without the build
 * step (the tests run on the build already made): anything else is an error.
 */
const NPM_SHIM = `
npm() {
  [ "$1" = run ] || { echo "test shim: unexpected npm $*" >&2; return 99; }; shift
  [ "$1" = -s ] && shift
  [ "$1" = cli ] || { echo "test shim: unexpected npm run $*" >&2; return 99; }; shift
  [ "$1" = -- ] && shift
  node "${CLI}" "$@"
}
`;

/**
 * Runs a guide's steps verbatim in bash (errexit, nounset), in `cwd`, with `env` only; prints the
 * variables named in `report` at the end as NAME=value lines on stdout.
 */
export function runGuideSteps(
  script: string,
  cwd: string,
  env: Record<string, string>,
  report: readonly string[] = [],
): Promise<CliRun> {
  const tail = report.map((name) => `printf '%s=%s\\n' ${name} "\${${name}:-}"`).join('\n');
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-c', `set -euo pipefail\n${NPM_SHIM}\n${script}\n${tail}\n`], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** The value of a `NAME=value` line printed by runGuideSteps. */
export function reported(stdout: string, name: string): string {
  const line = stdout.split('\n').find((l) => l.startsWith(`${name}=`));
  if (line === undefined) throw new Error(`${name} was not reported`);
  return line.slice(name.length + 1);
}
