import { DataSource } from 'typeorm';
import { databaseOptions, type DatabaseTarget, type EntityList } from './data-source-options.js';
import { MIGRATIONS } from './migrations.js';
import { sqlStateOf, UNDEFINED_TABLE } from './sql-state.js';

/**
 * A plain TypeORM data source (no Nest), for the CLI and the test harness: no statement timeout.
 * With the schema's entities from `src/data-source.ts` (`openDataSource`), or none to run SQL only.
 */
export async function openDatabase(target: DatabaseTarget, entities: EntityList): Promise<DataSource> {
  const dataSource = new DataSource(databaseOptions(target, entities, false, 'operator'));
  await dataSource.initialize();
  return dataSource;
}

/** Runs pending migrations; returns the names of those applied. */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  return applied.map((m) => m.name);
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
