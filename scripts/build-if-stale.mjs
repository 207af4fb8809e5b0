// `npm run cli` and `npm start` build dist/ only when a source is newer than the last build: an
// up-to-date build skips an 8 s compile, and an edited source is still compiled before it runs.
// Inputs: src/, migrations/, the tsconfig files (directories count too, so an added or removed
// file is a change) and package-lock.json, by content: `npm prune --omit=dev` rewrites the lock
// file unchanged, and the production install (build, then prune) must not look stale. tsc leaves
// an output it would write unchanged alone, so the build's time is a stamp: `npm run build` dates
// dist/.build-stamp when it starts (prebuild: --begin, which also records the lock file's hash)
// and keeps it once it succeeded (postbuild: --end).
// Without the dev dependencies (a production install) it never compiles: a stale or missing
// build is an error that says how to build.
// Usage: node scripts/build-if-stale.mjs [--begin | --end]; BUILD_ROOT names another checkout.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.env.BUILD_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const INPUTS = ['src', 'migrations', 'tsconfig.json', 'tsconfig.build.json'];
const LOCK = join(root, 'package-lock.json');
const OUTPUTS = ['dist/src', 'dist/migrations'];
const STAMP = join(root, 'dist', '.build-stamp');
const STARTED = join(root, 'dist', '.build-started');

/** The lock file's SHA-256 (hex); '' when there is none. */
function lockHash() {
  return existsSync(LOCK) ? createHash('sha256').update(readFileSync(LOCK)).digest('hex') : '';
}

/** Dates the build that starts now, with the lock file it compiles against. */
function beginStamp() {
  mkdirSync(dirname(STARTED), { recursive: true });
  writeFileSync(STARTED, `${new Date().toISOString()}\nlock ${lockHash()}\n`);
}

const mode = process.argv[2];
if (mode === '--begin') {
  beginStamp();
  process.exit(0);
}
if (mode === '--end') {
  if (existsSync(STARTED)) renameSync(STARTED, STAMP);
  process.exit(0);
}

/** The newest mtime under a path (the path itself included); 0 when it does not exist. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  let time = stat.mtimeMs;
  if (stat.isDirectory()) for (const entry of readdirSync(path)) time = Math.max(time, newest(join(path, entry)));
  return time;
}

/** Whether the lock file changed since the build: by content when the stamp recorded it. */
function lockChangedSince(built) {
  if (newest(LOCK) <= built) return false;
  const recorded = /^lock (\S*)$/m.exec(readFileSync(STAMP, 'utf8'))?.[1];
  return recorded === undefined || recorded !== lockHash();
}

/** Every dev dependency is installed: without them (`--omit=dev`, `npm prune`) tsc cannot build. */
function devDependenciesInstalled() {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return Object.keys(manifest.devDependencies ?? {}).every((name) =>
    existsSync(join(root, 'node_modules', name, 'package.json')),
  );
}

const inputs = Math.max(...INPUTS.map((input) => newest(join(root, input))));
const complete = OUTPUTS.every((output) => existsSync(join(root, output)));
const built = complete ? statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs : undefined;
if (built !== undefined && built >= inputs && !lockChangedSince(built)) process.exit(0);

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc) || !devDependenciesInstalled()) {
  process.stderr.write(
    `${built === undefined ? 'dist/ is not built' : 'dist/ is older than the sources'} and the dev dependencies ` +
      '(TypeScript) are not installed (a production install): build first with them ' +
      '(`npm run setup && npm run build`), then `npm prune --omit=dev` (docs/operator-guide.md).\n',
  );
  process.exit(1);
}
process.stderr.write(`${built === undefined ? 'Building dist/' : 'Sources changed: rebuilding dist/'} (tsc)...\n`);
beginStamp();
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);
renameSync(STARTED, STAMP);
