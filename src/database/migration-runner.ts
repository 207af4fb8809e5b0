import { DataSource } from 'typeorm';
import { dataSourceOptions, type DatabaseTarget } from './data-source-options.js';

/** A plain TypeORM data source (no Nest), for the CLI and the test harness: no statement timeout. */
export async function openDataSource(target: DatabaseTarget): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(target, false, 'operator'));
  await dataSource.initialize();
  return dataSource;
}

/** Runs pending migrations; returns the names of those applied. */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const applied = await dataSource.runMigrations({ transaction: 'each' });
  return applied.map((m) => m.name);
}
