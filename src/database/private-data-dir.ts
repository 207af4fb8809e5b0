import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** What is kept from a mode: the owner's bits only. */
const OWNER_ONLY = 0o700;

/**
 * The service and the CLI create every file for their owner only (umask 077): the embedded
 * database's files, its backups, exports. Called first thing by their entry points.
 */
export function createFilesPrivate(): void {
  process.umask(0o077);
}

/**
 * Keeps DATA_DIR readable by its owner only: the folder is 0700, and whatever an older release,
 * a copy or a restore left open to group or others is tightened to its owner's bits (new files
 * are private through createFilesPrivate). Answers how many files and folders were tightened.
 */
export function makeDataDirPrivate(dataDir: string): number {
  mkdirSync(dataDir, { recursive: true, mode: OWNER_ONLY });
  // DATA_DIR itself may be a link to the volume (followed); links below it are left alone.
  return tighten(dataDir, statSync(dataDir));
}

/**
 * What the process may not change is left as it is: an entry of another owner (a volume's
 * `lost+found`), one it cannot read, one gone meanwhile.
 */
const LEFT_ALONE = new Set(['EACCES', 'EPERM', 'ENOENT']);

function tighten(path: string, stat: Stats | undefined = lstatSync(path, { throwIfNoEntry: false })): number {
  if (!stat || stat.isSymbolicLink()) return 0;
  let tightened = 0;
  try {
    if ((stat.mode & 0o077) !== 0) {
      chmodSync(path, stat.mode & OWNER_ONLY);
      tightened += 1;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) tightened += tighten(join(path, name));
    }
  } catch (error) {
    if (!LEFT_ALONE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
  return tightened;
}

/** The warning a start prints when it had to tighten modes (Node's warning, logged as JSON). */
export function warnOfTightenedModes(dataDir: string, tightened: number): void {
  if (tightened === 0) return;
  process.emitWarning(
    `${dataDir} held ${tightened} file(s) or folder(s) readable by group or others: tightened to their owner only.`,
    { code: 'FINANCE_INTAKE_DATA_DIR_MODES' },
  );
}
