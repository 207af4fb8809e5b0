import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.js';

export const LOCK_FILE = 'finance-intake.lock';

/** Who holds the embedded database: the service, or one CLI command. */
export type LockRole = 'service' | 'cli';

export interface LockHolder {
  readonly role: LockRole;
  /** The CLI command's name, for the message another process prints. */
  readonly command?: string;
}

/** What the lock file holds (JSON). */
export interface LockRecord {
  readonly role: LockRole;
  readonly command: string | null;
  readonly pid: number;
  /** The service's HTTP port once it listens; null for a CLI command or before listening. */
  readonly port: number | null;
  /** The service's local control socket (backup while serving); null when there is none. */
  readonly control: string | null;
  readonly hostname: string;
  /** The kernel's start time of the process (Linux), so a reused pid is not taken for the holder. */
  readonly processStart: string | null;
  readonly startedAt: string;
  /** Random per acquisition: proves a file is (still) this acquisition's. */
  readonly nonce: string;
}

/** DATA_DIR is held by another live process; the message is one line naming it and what to do. */
export class DataDirInUse extends ConfigError {
  constructor(
    readonly holder: LockRecord,
    message: string,
  ) {
    super(message);
    this.name = 'DataDirInUse';
  }
}

/** Nonces of the locks this process holds now. */
const heldHere = new Set<string>();

/** Fields 3 and 22 of /proc/<pid>/stat (state; start time in clock ticks since boot); null off Linux. */
function procStat(pid: number): { state: string; start: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', start: fields[19] ?? '' };
  } catch {
    return null;
  }
}

function processStartOf(pid: number): string | null {
  return procStat(pid)?.start ?? null;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process named by a lock record still runs. On another host we cannot tell, so
 * the lock counts as held. A pid that is alive but started at another time is a reused pid (a
 * container restarted with the same pid 1, for one): the holder is gone.
 */
function holderRuns(record: LockRecord): boolean {
  if (record.hostname !== hostname()) return true;
  // Our own pid: held by this very process, or left by an earlier one that had our pid.
  if (record.pid === process.pid) return heldHere.has(record.nonce);
  if (!isAlive(record.pid)) return false;
  const stat = procStat(record.pid);
  if (stat === null) return true; // no /proc: the pid answering is all we can know
  // A killed process its parent has not reaped yet (a zombie) holds nothing any more.
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return record.processStart === null || stat.start === record.processStart;
}

function describeHolder(record: LockRecord): string {
  const where = record.hostname === hostname() ? '' : ` on host ${record.hostname}`;
  if (record.role === 'service') {
    return `the service (pid ${record.pid}${record.port === null ? '' : `, port ${record.port}`}${where})`;
  }
  return `the CLI command "${record.command ?? '?'}" (pid ${record.pid}${where})`;
}

function inUseMessage(dataDir: string, record: LockRecord, holder: LockHolder): string {
  const owner = describeHolder(record);
  const lockFile = join(dataDir, LOCK_FILE);
  const otherHost = record.hostname !== hostname();
  const advice = otherHost
    ? `stop it there; if nothing runs there any more, delete ${lockFile}`
    : record.role === 'service'
      ? holder.role === 'service'
        ? `stop it first (kill ${record.pid}), or give this service another DATA_DIR`
        : `stop it (kill ${record.pid}, or Ctrl+C in its terminal) and run the command again`
      : 'wait for it to finish and try again';
  return `The embedded database in ${dataDir} is in use by ${owner}: ${advice}.`;
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    if (typeof value.pid !== 'number' || typeof value.nonce !== 'string' || typeof value.hostname !== 'string') {
      return undefined;
    }
    return value as LockRecord;
  } catch {
    return undefined;
  }
}

/** The record in the lock file; undefined when there is none (or it is unreadable). */
export function readLock(dataDir: string): LockRecord | undefined {
  try {
    return parseRecord(readFileSync(join(dataDir, LOCK_FILE), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The live holder of DATA_DIR, if any (a stale lock counts as none). */
export function liveHolder(dataDir: string): LockRecord | undefined {
  const record = readLock(dataDir);
  return record && holderRuns(record) ? record : undefined;
}

/** Writes `text` to a new file that nobody else can have open (O_EXCL), flushed to disk. */
function writeNewFile(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface DataDirLock {
  readonly record: LockRecord;
  /** Records the service's port and control socket once known (rewritten atomically). */
  update(changes: Partial<Pick<LockRecord, 'port' | 'control'>>): void;
  /** Removes the lock if it is still this one; safe to call twice. */
  release(): void;
}

/** Attempts at taking the lock; each waits a little when another process is taking over. */
const ATTEMPTS = 200;
/** A takeover marker older than this was left by a process that died while taking over. */
const TAKEOVER_STALE_MS = 10_000;

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes DATA_DIR for this process or throws DataDirInUse naming the holder.
 *
 * The record is written to a private file first and then hard-linked to the lock's name:
 * link() is atomic and fails when the name exists, so the lock appears whole or not at all
 * and two processes can never both create it. A lock whose process is gone (kill -9, a
 * crash) is removed only by a process holding the takeover marker (created with O_EXCL), and
 * only after it has read the lock again under the marker: as nobody can link over an existing
 * lock, the file it removes is the stale one it checked, never a newcomer's.
 */
export function acquireDataDirLock(dataDir: string, holder: LockHolder): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, LOCK_FILE);
  let record: LockRecord = {
    role: holder.role,
    command: holder.command ?? null,
    pid: process.pid,
    port: null,
    control: null,
    hostname: hostname(),
    processStart: processStartOf(process.pid),
    startedAt: new Date().toISOString(),
    nonce: randomBytes(12).toString('hex'),
  };
  const privatePath = (tag: string) => `${lockPath}.${process.pid}.${record.nonce}.${tag}`;

  for (let attempt = 0; ; attempt++) {
    if (attempt === ATTEMPTS)
      throw new Error(`Could not take the lock ${lockPath} (unreadable?); if no process uses ${dataDir}, delete it.`);
    const draft = privatePath('new');
    writeNewFile(draft, JSON.stringify(record));
    try {
      linkSync(draft, lockPath);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      unlinkSync(draft);
    }
    const existing = readLock(dataDir);
    if (existing === undefined) continue; // released meanwhile: try again
    if (holderRuns(existing)) throw new DataDirInUse(existing, inUseMessage(dataDir, existing, holder));
    removeStaleLock(dataDir, holder, privatePath('takeover'));
  }

  let released = false;
  heldHere.add(record.nonce);
  const ours = (): boolean => readLock(dataDir)?.nonce === record.nonce;
  const releaseOnExit = (): void => release();
  function release(): void {
    if (released) return;
    released = true;
    heldHere.delete(record.nonce);
    process.off('exit', releaseOnExit);
    try {
      if (ours()) unlinkSync(lockPath);
    } catch {
      // Already gone: nothing to release.
    }
  }
  // process.exit() anywhere (a failed start, the CLI's exit) still removes the lock.
  process.on('exit', releaseOnExit);

  return {
    get record() {
      return record;
    },
    update(changes) {
      record = { ...record, ...changes };
      const draft = privatePath('update');
      writeNewFile(draft, JSON.stringify(record));
      renameSync(draft, lockPath);
    },
    release,
  };
}

/**
 * Removes the lock file if, read again under the takeover marker, its holder is still gone.
 * Without the marker (another process is taking over) it waits a moment and lets the caller
 * try again. Throws DataDirInUse if a live process holds the lock by then.
 */
function removeStaleLock(dataDir: string, holder: LockHolder, draft: string): void {
  const lockPath = join(dataDir, LOCK_FILE);
  const marker = `${lockPath}.takeover`;
  writeNewFile(draft, String(process.pid));
  try {
    linkSync(draft, marker);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(marker).mtimeMs > TAKEOVER_STALE_MS) unlinkSync(marker);
    } catch {
      // Gone meanwhile: the next attempt sees.
    }
    pause(10 + Math.floor(Math.random() * 20));
    return;
  } finally {
    unlinkSync(draft);
  }
  try {
    const current = readLock(dataDir);
    if (current === undefined) return;
    if (holderRuns(current)) throw new DataDirInUse(current, inUseMessage(dataDir, current, holder));
    unlinkSync(lockPath);
  } finally {
    unlinkSync(marker);
  }
}
