/**
 * Whether an error means the database cannot be reached or cannot serve right now, as opposed
 * to a bug (a wrong query, a missing table): the first is a 503 the client may retry, the
 * second stays a 500.
 */

/** Socket errors of the driver (also wrapped by TypeORM). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs: class 08 (connection exception) is matched by prefix; 57P01-57P05 are the server
 * shutting down, crashing, starting, a database dropped under the session and an idle session
 * timeout; 53300 too many connections; 57014 a statement cancelled by statement_timeout; 25P03
 * idle_in_transaction_session_timeout; 55P03 a lock not granted within lock_timeout (another
 * transaction holds the record: the client may retry, and nothing of the request was written).
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05', '53300', '57014', '25P03', '55P03']);

/** Errors node-postgres, pg-pool and TypeORM raise without a code. */
const MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /is not queryable/,
  /^Cannot use a pool after calling end/,
  /^Connection is not established/,
];

const ERROR_NAMES = new Set(['CannotExecuteNotConnectedError', 'ConnectionIsNotSetError']);

function matches(error: object): boolean {
  const { code, message, name } = error as { code?: unknown; message?: unknown; name?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) {
    return true;
  }
  if (typeof name === 'string' && ERROR_NAMES.has(name)) return true;
  return typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message));
}

/** Looks at the error, TypeORM's `driverError` and `cause` chains (bounded). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<object>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 8) {
    const item = queue.shift();
    if (typeof item !== 'object' || item === null || seen.has(item)) continue;
    seen.add(item);
    if (matches(item)) return true;
    const { driverError, cause, errors } = item as { driverError?: unknown; cause?: unknown; errors?: unknown };
    queue.push(driverError, cause);
    // AggregateError (one connection attempt per address), matched by shape across realms.
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
  }
  return false;
}
