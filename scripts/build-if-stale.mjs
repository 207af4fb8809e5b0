// `npm run cli` and `npm start` build dist/ only when a source is newer than the last build: an
// up-to-date build skips an 8 s compile, and an edited source is still compiled before it runs.
// Inputs: src/, migrations/, the tsconfig files and package-lock.json (directories count too, so
// an added or removed file is a change). tsc leaves an output it would write unchanged alone, so
// the build's time is a stamp: `npm run build` dates dist/.build-stamp when it starts
// (prebuild: --begin) and keeps it once it succeeded (postbuild: --end).
// Usage: node scripts/build-if-stale.mjs [--begin | --end]; BUILD_ROOT names another checkout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.env.BUILD_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const INPUTS = ['src', 'migrations', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const OUTPUTS = ['dist/src', 'dist/migrations'];
const STAMP = join(root, 'dist', '.build-stamp');
const STARTED = join(root, 'dist', '.build-started');

const mode = process.argv[2];
if (mode === '--begin') {
  mkdirSync(dirname(STARTED), { recursive: true });
  writeFileSync(STARTED, `${new Date().toISOString()}\n`);
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

const inputs = Math.max(...INPUTS.map((input) => newest(join(root, input))));
const complete = OUTPUTS.every((output) => existsSync(join(root, output)));
const built = complete ? statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs : undefined;
if (built !== undefined && built >= inputs) process.exit(0);

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
if (!existsSync(tsc)) {
  process.stderr.write(
    `${built === undefined ? 'dist/ is not built' : 'dist/ is older than the sources'} and TypeScript is not ` +
      'installed (a production install): build first with the dev dependencies (`npm ci && npm run build`).\n',
  );
  process.exit(1);
}
process.stderr.write(`${built === undefined ? 'Building dist/' : 'Sources changed: rebuilding dist/'} (tsc)...\n`);
mkdirSync(dirname(STARTED), { recursive: true });
writeFileSync(STARTED, `${new Date().toISOString()}\n`);
const run = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (run.status !== 0) process.exit(run.status ?? 1);
renameSync(STARTED, STAMP);
