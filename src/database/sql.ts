/** Anything that runs SQL: a DataSource, an EntityManager, a QueryRunner, the PoolReader or one of its transactions. */
export interface SqlExecutor {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** An executor that also runs work in one transaction on one connection. */
export interface TransactionalExecutor extends SqlExecutor {
  transaction<T>(isolation: 'REPEATABLE READ', work: (db: SqlExecutor) => Promise<T>): Promise<T>;
}

/** Runs a SELECT and types its rows; the one place where the driver's untyped rows are cast. */
export async function selectRows<T>(executor: SqlExecutor, sql: string, parameters: unknown[] = []): Promise<T[]> {
  return (await executor.query(sql, parameters)) as T[];
}

/** Runs an UPDATE or DELETE and returns the number of rows it touched. */
export async function affectedRows(executor: SqlExecutor, sql: string, parameters: unknown[] = []): Promise<number> {
  const result = (await executor.query(sql, parameters)) as [unknown[], number];
  return result[1];
}

/**
 * An executor that runs its queries one after another, in the order they were asked for. A
 * transaction (an EntityManager's, a QueryRunner's, PoolReader.transaction's) holds one client, and pg deprecates (and pg 9
 * refuses) a query on a client still running one; readers that ask for several queries at once
 * (nested rows of a page, Promise.all) get them queued here instead.
 */
export function oneQueryAtATime(executor: SqlExecutor): SqlExecutor {
  let previous: Promise<unknown> = Promise.resolve();
  return {
    query(sql: string, parameters?: unknown[]): Promise<unknown> {
      const next = previous.then(
        () => executor.query(sql, parameters),
        () => executor.query(sql, parameters),
      );
      previous = next.catch(() => undefined);
      return next;
    },
  };
}
