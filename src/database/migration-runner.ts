import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, MigrationExecutor } from 'typeorm';
import { databaseOptions, type DatabaseTarget, type EntityList } from './data-source-options.js';
import { MIGRATIONS } from './migrations.js';
import { DEADLOCK_DETECTED, LOCK_NOT_AVAILABLE, sqlStateOf, UNDEFINED_TABLE } from './sql-state.js';

/**
 * A plain TypeORM data source (no Nest), for the CLI and the test harness: no statement timeout.
 * With the schema's entities from `src/data-source.ts` (`openDataSource`), or none to run SQL only.
 */
export async function openDatabase(target: DatabaseTarget, entities: EntityList): Promise<DataSource> {
  const dataSource = new DataSource(databaseOptions(target, entities, false, 'operator'));
  await dataSource.initialize();
  return dataSource;
}

/** How a migration waits for the locks its statements need while the service is serving. */
export interface MigrationLockPolicy {
  /** The longest wait for one lock (lock_timeout) before the migration gives way and retries. */
  readonly lockTimeoutMs: number;
  /** Attempts of the pending migrations in all, the first included. */
  readonly attempts: number;
  /** Told of each retry (the attempt that failed and the wait before the next). */
  readonly onRetry?: (attempt: number, waitMs: number, error: unknown) => void;
}

/**
 * A migration that waits for a lock queues every later statement on that table behind it, and
 * one that takes its locks in another order than a request is a deadlock: with the service
 * serving (an upgrade), that was seconds of stalled requests and requests failing. So each
 * migration's statements wait at most 800 ms for a lock (below PostgreSQL's 1-s deadlock check,
 * so the migration gives way before a request could be the deadlock's victim), then the pending
 * migrations are tried again after a pause that doubles from 250 ms up to 8 s, 12 times in all
 * (about a minute). Migrations applied before the failure stay applied (one transaction each).
 */
export const MIGRATION_LOCKS: MigrationLockPolicy = { lockTimeoutMs: 800, attempts: 12 };

/** The policy with each retry told in one line (no statement text, no parameters). */
export function migrationLocksTelling(tell: (line: string) => void): MigrationLockPolicy {
  return {
    ...MIGRATION_LOCKS,
    onRetry: (attempt, waitMs) =>
      tell(
        `A migration waited ${MIGRATION_LOCKS.lockTimeoutMs} ms for a lock the service holds and gave way ` +
          `(attempt ${attempt} of ${MIGRATION_LOCKS.attempts}); trying again in ${waitMs} ms.`,
      ),
  };
}

function givesWay(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state === LOCK_NOT_AVAILABLE || state === DEADLOCK_DETECTED;
}

/** Runs pending migrations, giving way to the service's locks (see MIGRATION_LOCKS); returns the names of those applied. */
export async function runMigrations(
  dataSource: DataSource,
  policy: MigrationLockPolicy = MIGRATION_LOCKS,
): Promise<string[]> {
  const applied: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const pass = await runPendingOnce(dataSource, policy.lockTimeoutMs);
    // Those a failed pass committed before it gave way stay applied, and are told too.
    applied.push(...pass.applied);
    if (pass.error === undefined) return applied;
    if (!givesWay(pass.error) || attempt >= policy.attempts) throw pass.error;
    const waitMs = Math.min(8_000, 250 * 2 ** (attempt - 1));
    policy.onRetry?.(attempt, waitMs, pass.error);
    await sleep(waitMs);
  }
}

/**
 * One pass over the pending migrations, a transaction each, on a connection with the lock bound:
 * what it applied, and the error that stopped it (the migrations before that one stay applied).
 */
async function runPendingOnce(
  dataSource: DataSource,
  lockTimeoutMs: number,
): Promise<{ applied: string[]; error?: Error }> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await queryRunner.query(`SET lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
    const executor = new MigrationExecutor(dataSource, queryRunner);
    executor.transaction = 'each';
    const pending = (await executor.getPendingMigrations()).map((m) => m.name);
    try {
      return { applied: (await executor.executePendingMigrations()).map((m) => m.name) };
    } catch (error: unknown) {
      const left = await executor.getPendingMigrations().then(
        (migrations) => new Set(migrations.map((m) => m.name)),
        () => new Set(pending),
      );
      return {
        applied: pending.filter((name) => !left.has(name)),
        error: error instanceof Error ? error : new Error(String(error)),
      };
    }
  } finally {
    // The embedded database has one session for every connection: the bound must not outlive this.
    await queryRunner.query('RESET lock_timeout').catch(() => undefined);
    await queryRunner.release();
  }
}

/** The migration names this release expects in TypeORM's table (each class's `name`). */
export const EXPECTED_MIGRATIONS: readonly string[] = MIGRATIONS.map(
  (migration) => new migration().name ?? migration.name,
);

/** This release's migrations the database has not recorded (all of them without the table). */
export async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  try {
    const rows = await dataSource.query<{ name: string }[]>(`SELECT name FROM ${table} WHERE name = ANY($1)`, [
      EXPECTED_MIGRATIONS,
    ]);
    const applied = new Set(rows.map((row) => row.name));
    return EXPECTED_MIGRATIONS.filter((name) => !applied.has(name));
  } catch (error: unknown) {
    if (sqlStateOf(error) === UNDEFINED_TABLE) return [...EXPECTED_MIGRATIONS];
    throw error;
  }
}
