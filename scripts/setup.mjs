#!/usr/bin/env node
// `npm run setup`: installs the dependencies exactly as the lock file says (`npm ci`, extra
// arguments passed on), with npm itself running on the project's own Node (the pinned `node`
// dependency). npm checks every package's `engines` against the Node npm runs on; on a machine
// whose system Node is older than the project's line (20 here), a plain `npm ci` warns
// EBADENGINE for each package that needs Node 22 or 24, although those packages only ever run
// on the project's Node. Here npm runs on that Node from the start, fetched from the npm
// registry by npx (cached after the first time), so the install sees the Node the project runs.
// Plain ECMAScript on purpose: this runs on whatever Node npm was started with, before any
// dependency is installed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const pinned = manifest.dependencies?.node;
if (!pinned) throw new Error('package.json has no pinned `node` dependency');

// npm sets npm_execpath to its own npm-cli.js when it runs a script; npx-cli.js sits beside it.
const npmCli = process.env.npm_execpath;
if (!npmCli || !/npm-cli\.js$/.test(npmCli)) {
  process.stderr.write('Run this through npm: npm run setup\n');
  process.exit(2);
}
const npxCli = join(dirname(npmCli), 'npx-cli.js');
const ciArgs = ['ci', ...process.argv.slice(2)];

const sameNode = process.versions.node === pinned;
const [command, args] = sameNode
  ? [process.execPath, [npmCli, ...ciArgs]]
  : // npx puts the pinned package's `node` first on the PATH of the command it runs.
    [process.execPath, [npxCli, '--yes', '--package', `node@${pinned}`, '--', 'node', npmCli, ...ciArgs]];

process.stderr.write(
  `Installing dependencies with npm on Node ${pinned}${sameNode ? '' : ' (from the npm registry)'}\n`,
);
const run = spawnSync(command, args, { stdio: 'inherit' });
if (run.error) throw run.error;
process.exit(run.status ?? 1);
