import { createHmac, timingSafeEqual } from 'node:crypto';

/** Provider A's form: lowercase hex HMAC-SHA256 of the raw body. */
export function hexSignature(secret: string, body: Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Provider B's form: base64 HMAC-SHA256 of the raw body. */
export function base64Signature(key: string, body: Buffer): string {
  return createHmac('sha256', key).update(body).digest('base64');
}

/**
 * Constant-time comparison of a received signature with the expected text. Strings are
 * compared as sent, never decoded (hex decoding would drop bad characters); the length check
 * comes first because timingSafeEqual throws on unequal lengths.
 */
export function signatureMatches(received: string | undefined, expected: string): boolean {
  if (received === undefined) return false;
  const a = Buffer.from(received, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
