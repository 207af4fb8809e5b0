/** Anything that runs SQL: a DataSource, an EntityManager or a QueryRunner. */
export interface SqlExecutor {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
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
