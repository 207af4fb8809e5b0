import { jest } from '@jest/globals';
import type { DataSource } from 'typeorm';

/**
 * What `run` returned and the SQL statements the application sent meanwhile, as TypeORM's query
 * log saw them (the request path's reader logs there too).
 */
export async function withStatements<T>(
  dataSource: DataSource,
  run: () => Promise<T>,
): Promise<{ result: T; sql: string[] }> {
  const spy = jest.spyOn(dataSource.logger, 'logQuery');
  try {
    const result = await run();
    return { result, sql: spy.mock.calls.map(([statement]) => statement) };
  } finally {
    spy.mockRestore();
  }
}
