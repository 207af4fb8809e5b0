import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/**
 * Builds of earlier commits, beside the working tree: for `npm run bench:compare` (REF against
 * this build) and the upgrade test (the previous release serving while this one migrates).
 */
const ROOT = repositoryRoot();

/** The checkout this module is part of, from its sources (tests) or its build (dist/bench/lib). */
function repositoryRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
    dir = parent;
  }
  return dir;
}
const BUILDS = process.env.BENCH_BUILDS_DIR ?? join(tmpdir(), 'finance-intake-bench-builds');

/** The PATH without this checkout's node_modules/.bin: the machine's own Node and npm. */
export function machinePath(): string {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !dir.includes('node_modules'))
    .join(delimiter);
}

function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, {
    cwd,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, PATH: machinePath() },
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed in ${cwd} (${result.status})`);
}

/**
 * A commit's tree, installed and built once in BENCH_BUILDS_DIR (kept for the next use): its
 * own lock file and install command (`npm run setup` where it has one), its own build script.
 */
export function buildRelease(sha: string): string {
  const dir = join(BUILDS, sha);
  const done = join(dir, '.bench-built');
  if (existsSync(done)) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`Building ${sha.slice(0, 7)} in ${dir}...\n`);
  const archive = execFileSync('git', ['archive', '--format=tar', sha], { cwd: ROOT, maxBuffer: 1 << 30 });
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive });
  if (untar.status !== 0) throw new Error(`unpacking ${sha} failed: ${untar.stderr.toString()}`);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  run(
    'npm',
    manifest.scripts.setup ? ['run', 'setup', '--', '--no-audit', '--no-fund'] : ['ci', '--no-audit', '--no-fund'],
    dir,
  );
  run('npm', ['run', 'build'], dir);
  writeFileSync(done, `${sha}\n`);
  return dir;
}

/** The Node a checkout runs on: its own `node` package where it has one, else the machine's. */
export function nodeOf(dir: string): string {
  const own = join(dir, 'node_modules/.bin/node');
  if (existsSync(own)) return own;
  const found = spawnSync('sh', ['-c', 'command -v node'], { env: { PATH: machinePath() }, encoding: 'utf8' });
  const node = found.stdout.trim();
  if (!node) throw new Error('no node on the PATH for the reference build');
  return node;
}

export function nodeVersion(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}
