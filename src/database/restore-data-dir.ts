import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { ConfigError } from '../config/config-error.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { openDatabase } from './migration-runner.js';
import { makeDataDirPrivate } from './private-data-dir.js';
import { selectRows } from './sql.js';
import { realEnterprise } from './no-enterprise.js';

export interface RestoredCounts {
  enterprises: number;
  users: number;
  people: number;
}

/**
 * Unpacks a backup (a gzipped tar of the data directory) into DATA_DIR/pgdata, which must not
 * hold a database yet, opens it and runs `checkKey` on it (the caller's proof that the configured
 * key reads it). On any failure the unpacked directory is removed again, so DATA_DIR is left as
 * it was found.
 */
export async function restoreDataDir(
  config: AppConfig,
  backup: Buffer,
  checkKey: (dataSource: DataSource) => Promise<void>,
): Promise<RestoredCounts> {
  const lock = acquireDataDirLock(config.dataDir, { role: 'cli', command: 'restore' });
  try {
    // A folder made for the restore (the guide's `mkdir`) is tightened without a word: it is new.
    makeDataDirPrivate(config.dataDir);
    const pgdata = join(config.dataDir, 'pgdata');
    if (existsSync(pgdata) && readdirSync(pgdata).length > 0) {
      throw new ConfigError(
        `${pgdata} already holds a database: restore into a new, empty DATA_DIR (or move this one aside first).`,
      );
    }
    const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
    let server: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
    try {
      server = await startEmbeddedPostgres(pgdata, new Blob([new Uint8Array(backup)]));
      const dataSource = await openDatabase({ url: server.url, poolMax: 1 }, []);
      try {
        await checkKey(dataSource);
        const [counts] = await selectRows<RestoredCounts>(
          dataSource,
          `SELECT (SELECT count(*)::int FROM enterprises e WHERE ${realEnterprise('e')}) AS enterprises, (SELECT count(*)::int FROM users) AS users,
                  (SELECT count(*)::int FROM people) AS people`,
        );
        // Whatever modes the backup's archive carried, the restored files are the owner's only.
        makeDataDirPrivate(config.dataDir);
        return counts ?? { enterprises: 0, users: 0, people: 0 };
      } finally {
        await dataSource.destroy();
      }
    } catch (error) {
      await server?.stop();
      server = undefined;
      rmSync(pgdata, { recursive: true, force: true });
      throw error;
    } finally {
      await server?.stop();
    }
  } finally {
    lock.release();
  }
}
