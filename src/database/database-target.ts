import { join } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import type { DatabaseTarget } from './data-source-options.js';

export interface ResolvedDatabase extends DatabaseTarget {
  readonly embedded: boolean;
  /** Stops the embedded server; nothing to do for an external one. */
  release(): Promise<void>;
}

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under DATA_DIR (R24). */
export async function resolveDatabase(config: AppConfig): Promise<ResolvedDatabase> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, poolMax: config.databasePoolMax, embedded: false, release: async () => {} };
  }
  // Loaded only when needed: PGlite's module alone adds tens of MiB to a service on PostgreSQL.
  const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
  const server = await startEmbeddedPostgres(join(config.dataDir, 'pgdata'));
  return { url: server.url, poolMax: 1, embedded: true, release: () => server.stop() };
}
