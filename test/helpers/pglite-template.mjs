// Shared by the global set-up (plain Node, outside Jest's module system) and the test files
// that start a PGlite server of their own.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'finance-intake-tests');

function pgliteVersion() {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'));
  return String(manifest.version);
}

/**
 * A new PGlite database runs initdb first, which costs some 3 CPU-seconds; loading the data
 * directory initdb leaves, kept as a tar, costs a sixth of that. The tar is made once per PGlite
 * version and kept under node_modules/.cache (a fresh `npm ci` drops it). What initdb writes
 * depends on nothing but that version, so a server loaded from it starts as a new one does.
 */
export async function initialisedDataDir() {
  const file = join(CACHE_DIR, `pglite-${pgliteVersion()}-initdb.tar`);
  try {
    return new Blob([readFileSync(file)]);
  } catch (error) {
    if (error?.code !== 'ENOENT') throw error;
  }
  const db = await PGlite.create();
  let tar;
  try {
    // Nothing left in the WAL to replay when a copy is opened.
    await db.exec('CHECKPOINT');
    tar = await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  // Written aside, then renamed: a reader never sees half a file, and two writers at once agree.
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  writeFileSync(partial, new Uint8Array(await tar.arrayBuffer()));
  renameSync(partial, file);
  return tar;
}
