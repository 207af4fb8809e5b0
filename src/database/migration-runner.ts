import { DataSource } from 'typeorm';
import { databaseOptions, type DatabaseTarget, type EntityList } from './data-source-options.js';

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
