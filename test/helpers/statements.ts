import { jest } from '@jest/globals';
import type { DataSource } from 'typeorm';

/**
 * What `run` returned and the SQL statements the application sent meanwhile, as TypeORM's query
 * log saw them (the request path's reader logs there too), less the background fold of
 * row-count deltas, which runs on its own clock and belongs to no request.
 */
const BACKGROUND = /\btenant_counts_fold\(/;

export async function withStatements<T>(
  dataSource: DataSource,
  run: () => Promise<T>,
): Promise<{ result: T; sql: string[] }> {
  const spy = jest.spyOn(dataSource.logger, 'logQuery');
  try {
    const result = await run();
    const sql = spy.mock.calls.map(([statement]) => statement).filter((statement) => !BACKGROUND.test(statement));
    return { result, sql };
  } finally {
    spy.mockRestore();
  }
}
