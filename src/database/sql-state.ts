/**
 * The SQLSTATE of a database error: pg puts it on the error (`code`), TypeORM on the driver's
 * error it wraps (`driverError.code`). Undefined for anything else.
 */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, driverError } = error as { code?: unknown; driverError?: { code?: unknown } };
  const state = code ?? driverError?.code;
  return typeof state === 'string' ? state : undefined;
}

/** PostgreSQL's "undefined table": a database not migrated yet. */
export const UNDEFINED_TABLE = '42P01';

/** PostgreSQL's "lock not available": a lock_timeout ran out. */
export const LOCK_NOT_AVAILABLE = '55P03';

/** PostgreSQL's "deadlock detected": this transaction was chosen to end a deadlock. */
export const DEADLOCK_DETECTED = '40P01';

/** PostgreSQL's "invalid SQL statement name": a named statement this server connection never prepared. */
export const INVALID_SQL_STATEMENT_NAME = '26000';
