import { jest } from '@jest/globals';
import type { DataSource } from 'typeorm';

/**
 * What `run` returned and the SQL statements the application sent meanwhile, as TypeORM's query
 * log saw them (the request path's reader logs there too), less the background fold of
 * row-count deltas, which runs on its own clock and belongs to no request.
 */
const BACKGROUND = /\btenant_counts_fold\(/;

export interface LoggedStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export async function withStatements<T>(
  dataSource: DataSource,
  run: () => Promise<T>,
): Promise<{ result: T; sql: string[]; calls: LoggedStatement[] }> {
  const spy = jest.spyOn(dataSource.logger, 'logQuery');
  try {
    const result = await run();
    const calls = spy.mock.calls
      .map(([sql, parameters]): LoggedStatement => ({ sql, parameters: Array.isArray(parameters) ? parameters : [] }))
      .filter((call) => !BACKGROUND.test(call.sql));
    return { result, sql: calls.map((call) => call.sql), calls };
  } finally {
    spy.mockRestore();
  }
}
