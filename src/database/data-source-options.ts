import './pg-types.js';
import type { DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from './migrations.js';
import { SilentTypeOrmLogger } from './silent-typeorm-logger.js';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

export interface DatabaseTarget {
  readonly url: string;
  readonly poolMax: number;
  /** The embedded server: every connection shares one backend session. */
  readonly embedded?: boolean;
  /** The service's bound on waiting for a row lock (lock_timeout); default 3 s. */
  readonly lockTimeoutMs?: number;
  /** How the connections show in pg_stat_activity; default `finance-intake`. */
  readonly applicationName?: string;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 3_000;

/**
 * Who the connections are for. `service`: requests, which must never wait long on the database
 * (a fault is a quick 503). `operator`: the CLI and the test harness, where an
 * import or a migration may legitimately run a long statement.
 */
export type DatabaseRole = 'service' | 'operator';

/** node-postgres pool and client settings per role (milliseconds). */
export function connectionLimits(
  role: DatabaseRole,
  lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS,
): Record<string, number | boolean> {
  const common = {
    // Connecting, or waiting for a free pooled connection, fails after this instead of queueing forever.
    connectionTimeoutMillis: 5_000,
    // Half-open TCP connections (a server that vanished without closing) are noticed.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    idleTimeoutMillis: 30_000,
  };
  if (role === 'operator') return common;
  return {
    ...common,
    // The server cancels a statement running longer than this (SQLSTATE 57014, answered 503).
    statement_timeout: 15_000,
    // A statement waiting this long for a lock another transaction holds (a slow writer of the
    // same record) gives up (SQLSTATE 55P03, answered 503 with Retry-After; nothing written).
    lock_timeout: lockTimeoutMs,
    // The client stops waiting when the server does not answer at all (a hung host).
    query_timeout: 20_000,
    // A transaction left open by a stuck request does not hold its locks for long.
    idle_in_transaction_session_timeout: 30_000,
  };
}

/** The entity classes a data source maps; the database layer is handed them and names none itself. */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

/**
 * TypeORM options for `target`. `entities`: the schema's entity classes, assembled outside the
 * database layer (`src/data-source.ts`), or none for a connection that only runs SQL.
 */
export function databaseOptions(
  target: DatabaseTarget,
  entities: EntityList,
  migrationsRun: boolean,
  role: DatabaseRole = 'service',
): DataSourceOptions {
  return {
    type: 'postgres',
    url: target.url,
    entities,
    migrations: MIGRATIONS,
    migrationsRun,
    migrationsTransactionMode: 'each',
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    uuidExtension: 'pgcrypto',
    logging: false,
    logger: new SilentTypeOrmLogger(),
    applicationName: target.applicationName ?? 'finance-intake',
    extra: { max: target.poolMax, ...connectionLimits(role, target.lockTimeoutMs) },
  };
}
