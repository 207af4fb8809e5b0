import type { DataSourceOptions } from 'typeorm';
import { DataSource } from 'typeorm';
import { databaseOptions, type DatabaseRole, type DatabaseTarget } from './database/data-source-options.js';
import { openDatabase } from './database/migration-runner.js';
import { ENTITIES } from './entities.js';

/**
 * The service's data sources: the database layer's options with every entity of the schema.
 * The list is assembled here, above the modules that own the entities, so `src/database/`
 * never imports a resource or domain module.
 */
export function dataSourceOptions(
  target: DatabaseTarget,
  migrationsRun: boolean,
  role: DatabaseRole = 'service',
): DataSourceOptions {
  return databaseOptions(target, ENTITIES, migrationsRun, role);
}

/** A plain TypeORM data source with the schema's entities (no Nest), for the CLI and the test harness. */
export function openDataSource(target: DatabaseTarget): Promise<DataSource> {
  return openDatabase(target, ENTITIES);
}
