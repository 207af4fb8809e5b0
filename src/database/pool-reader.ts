import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient } from 'pg';
import { DataSource, type Logger } from 'typeorm';
import type { SqlExecutor, TransactionalExecutor } from './sql.js';

/**
 * At most this many distinct statements get a name (each connection keeps every named statement
 * it parsed for its lifetime); statements past it run unnamed. The service's reads are built
 * from fixed templates, a few dozen texts in all.
 */
export const MAX_PREPARED_STATEMENTS = 500;

/** Whether the application's PoolReader names its statements (a boolean). */
export const PREPARED_STATEMENTS = Symbol('PREPARED_STATEMENTS');

/** Names of prepared statements by their text: one name per text, for at most `limit` texts. */
export class StatementNames {
  private readonly names = new Map<string, string>();

  constructor(private readonly limit = MAX_PREPARED_STATEMENTS) {}

  /** The name a statement is prepared under (derived from its text), or undefined past the limit. */
  of(sql: string): string | undefined {
    let name = this.names.get(sql);
    if (name === undefined && this.names.size < this.limit) {
      name = `fi_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }
}

/** Shared by every reader of the process: the bound is per process. */
const statementNames = new StatementNames();

/**
 * Plain reads on every request's path (the token, the membership, the records): the pg pool
 * TypeORM opened, queried directly. `DataSource.query` creates and releases a query runner and
 * broadcasts events for each statement; for these statements that bought nothing and cost a
 * measurable share of a lead retrieve. Same pool, same connection settings (statement timeout
 * included), same errors from pg; statements still go to TypeORM's logger, so logging and the
 * tests that count statements see them.
 *
 * Each statement is a named prepared statement unless DATABASE_PREPARED_STATEMENTS=false (or the
 * database is the embedded one):
 * PostgreSQL parses and plans it once per connection instead of on every request, which for the
 * token look-up and a record with its version was most of the database's work per request.
 */
@Injectable()
export class PoolReader implements TransactionalExecutor {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(PREPARED_STATEMENTS) private readonly prepare: boolean,
  ) {}

  async query(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
    // Read on each call: the pool exists only while the DataSource is initialized.
    const pool = this.pool;
    if (!pool) throw new Error('Connection terminated: the database connection pool is not open');
    return queryPool(pool, sql, parameters, this.prepare, this.dataSource.logger);
  }

  /**
   * `work` in one transaction on one pool connection, its statements named like the reader's: a
   * snapshot read repeated on every request (a change feed page, a webhook round) is parsed and
   * planned once per connection too. Rolled back when `work` throws; a statement asked for once
   * the transaction is over (one still queued behind a failed one) is refused rather than run on
   * a connection back in the pool. A connection that failed meanwhile, or whose rollback failed,
   * is closed rather than returned.
   */
  async transaction<T>(isolation: 'REPEATABLE READ', work: (db: SqlExecutor) => Promise<T>): Promise<T> {
    const pool = this.pool;
    if (!pool) throw new Error('Connection terminated: the database connection pool is not open');
    const client = await pool.connect();
    const logger = this.dataSource.logger;
    let broken: Error | undefined;
    // The pool listens for a checked-out connection's errors no more: a server gone while this
    // one is held must end this transaction, not the process.
    const onError = (error: Error): void => {
      broken ??= error;
    };
    client.on('error', onError);
    let over = false;
    const db: SqlExecutor = {
      query: (sql, parameters = []) =>
        over
          ? Promise.reject(new Error('The transaction is over: the statement was not run'))
          : queryPool(client, sql, parameters, this.prepare, logger),
    };
    const control = (sql: string) => queryPool(client, sql, [], false, logger);
    try {
      await control(`START TRANSACTION ISOLATION LEVEL ${isolation}`);
      const result = await work(db);
      over = true;
      await control('COMMIT');
      return result;
    } catch (error) {
      over = true;
      await control('ROLLBACK').catch((rollbackError: unknown) => {
        broken ??= rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      client.removeListener('error', onError);
      client.release(broken);
    }
  }

  /** The primary's pg pool TypeORM opened; undefined while the DataSource is not initialized. */
  get pool(): Pool | undefined {
    return (this.dataSource.driver as unknown as { master?: Pool }).master;
  }

  /** TypeORM's logger, which every statement of the service goes through. */
  get logger(): Pick<Logger, 'logQuery'> {
    return this.dataSource.logger;
  }

  /** Whether statements are named (prepared once per connection). */
  get preparesStatements(): boolean {
    return this.prepare;
  }
}

/**
 * One statement on a pg pool or one of its connections, named when `prepare` says so (see
 * PoolReader), logged through TypeORM's logger like every other statement of the service.
 */
export async function queryPool(
  pool: Pool | PoolClient,
  sql: string,
  parameters: unknown[],
  prepare: boolean,
  logger: Pick<Logger, 'logQuery'>,
): Promise<Record<string, unknown>[]> {
  logger.logQuery(sql, parameters);
  const name = prepare ? statementNames.of(sql) : undefined;
  const result = await pool.query<Record<string, unknown>>(
    name === undefined ? { text: sql, values: parameters } : { text: sql, values: parameters, name },
  );
  return result.rows;
}
