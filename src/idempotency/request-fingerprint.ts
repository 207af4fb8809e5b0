import { createHash } from 'node:crypto';

/** JSON with every object's keys sorted, so key order and whitespace do not make a new request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  // undefined (no body) and functions cannot come from a parsed JSON body; both read as null.
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests "the same request" for an idempotency key: the method, the path and
 * the body as the route reads it (v2: after key normalisation), as a SHA-256. Only the digest is
 * stored, never the body.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${path}\n${canonicalJson(body)}`)
    .digest('hex');
}
