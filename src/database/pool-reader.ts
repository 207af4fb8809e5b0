import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { SqlExecutor } from './sql.js';

/**
 * Plain reads on every request's path (the token, the membership, one record): the pg pool
 * TypeORM opened, queried directly. `DataSource.query` creates and releases a query runner and
 * broadcasts events for each statement; for these statements that bought nothing and cost a
 * measurable share of a lead retrieve (issue 9). Same pool, same connection settings (statement
 * timeout included), same errors from pg; statements still go to TypeORM's logger, so logging
 * and the tests that count statements see them.
 */
export function poolReader(dataSource: DataSource): SqlExecutor {
  return {
    query: async (sql: string, parameters: unknown[] = []) => {
      // Read on each call: the pool exists only while the DataSource is initialized.
      const pool = (dataSource.driver as unknown as { master?: Pool }).master;
      if (!pool) throw new Error('Connection terminated: the database connection pool is not open');
      dataSource.logger.logQuery(sql, parameters);
      const result = await pool.query<Record<string, unknown>>(sql, parameters);
      return result.rows;
    },
  };
}
