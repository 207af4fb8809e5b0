import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { acquireDataDirLock, type DataDirLock, type LockHolder } from './data-dir-lock.js';
import type { DatabaseTarget } from './data-source-options.js';
import { makeDataDirPrivate, warnOfTightenedModes } from './private-data-dir.js';

export interface ResolvedDatabase extends DatabaseTarget {
  readonly embedded: boolean;
  /** The embedded database's lock on DATA_DIR; undefined for an external database. */
  readonly lock?: DataDirLock;
  /** A consistent copy of the embedded database's files (gzipped tar); external: undefined. */
  readonly dumpDataDir?: () => Promise<Blob>;
  /** Stops the embedded server and releases DATA_DIR; nothing to do for an external one. */
  release(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR, which only
 * one process may open at a time: it is locked first, and a live holder makes this throw.
 */
export async function resolveDatabase(config: AppConfig, holder: LockHolder): Promise<ResolvedDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, poolMax: config.databasePoolMax, embedded: false, release: async () => {} };
  }
  const lock = acquireDataDirLock(config.dataDir, holder);
  try {
    // Under the lock: another process holding DATA_DIR is refused before anything is touched.
    warnOfTightenedModes(config.dataDir, makeDataDirPrivate(config.dataDir));
    // Loaded only when needed: PGlite's module alone adds tens of MiB to a service on PostgreSQL.
    const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
    const server = await startEmbeddedPostgres(join(config.dataDir, 'pgdata'));
    // PGlite writes a new database's first files with modes of its own (open to all).
    makeDataDirPrivate(config.dataDir);
    return {
      url: server.url,
      poolMax: 1,
      embedded: true,
      lock,
      dumpDataDir: () => server.dumpDataDir(),
      async release() {
        try {
          await server.stop();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
