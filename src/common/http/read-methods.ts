const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Methods that only read: they change no record, so they take no place in an enterprise's
 * bulkhead and leave no write position for read-your-writes.
 */
export function onlyReads(method: string): boolean {
  return READ_METHODS.has(method);
}
