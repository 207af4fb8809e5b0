// Shared by the global set-up (plain Node, outside Jest's module system) and the test files
// that start a PGlite server of their own.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const ROOT = resolve(import.meta.dirname, '../..');
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'finance-intake-tests');

function pgliteVersion() {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'));
  return String(manifest.version);
}

/** A tar is whole 512-byte blocks; initdb's is some 40 MB. Anything else is a damaged copy. */
function looksWhole(bytes) {
  return bytes.length > 1024 * 1024 && bytes.length % 512 === 0;
}

/**
 * A new PGlite database runs initdb first, which costs 3.5 to 4 CPU-seconds; loading the data
 * directory initdb leaves, kept as a tar, costs about 0.5. The tar is made once per PGlite
 * version and kept under node_modules/.cache (a fresh `npm ci` drops it; deleting it is always
 * safe). Every server here is created with PGlite's default options, so what initdb writes
 * depends on nothing but that version, and a server loaded from it starts as a new one does.
 * The cache only saves time: a copy that cannot be read whole is made again, and one that
 * cannot be written is skipped.
 */
export async function initialisedDataDir() {
  const file = join(CACHE_DIR, `pglite-${pgliteVersion()}-initdb.tar`);
  try {
    const bytes = readFileSync(file);
    if (looksWhole(bytes)) return new Blob([bytes]);
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
  // Written aside, then renamed: a reader never sees half a file, and two writers at once agree.
  const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(partial, new Uint8Array(await tar.arrayBuffer()));
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
  return tar;
}
