import { sqlStateOf } from '../../database/sql-state.js';

/** Constraint violations and bad values (SQLSTATE classes 22 and 23), not connection faults. */
export function isDataError(error: unknown): error is Error {
  const state = sqlStateOf(error);
  return error instanceof Error && state !== undefined && (state.startsWith('22') || state.startsWith('23'));
}
