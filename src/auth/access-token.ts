import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SECRET = /^[A-Za-z0-9]{40,128}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The plaintext token: `<token id>|<secret>`. */
export interface ParsedToken {
  id: string;
  secret: string;
}

export function parseToken(plaintext: string): ParsedToken | undefined {
  const bar = plaintext.indexOf('|');
  if (bar < 0) return undefined;
  const id = plaintext.slice(0, bar);
  const secret = plaintext.slice(bar + 1);
  return UUID.test(id) && SECRET.test(secret) ? { id, secret } : undefined;
}

/** 48 characters from a 62-letter alphabet (about 285 bits), without modulo bias. */
export function newSecret(length = 48): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Constant-time comparison of two SHA-256 hex digests. */
export function digestsEqual(a: string, b: string): boolean {
  return a.length === 64 && b.length === 64 && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}
