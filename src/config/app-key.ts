import { randomBytes } from 'node:crypto';

/** Parses a 32-byte key written as `base64:<text>` (Laravel style) or as 64 hex characters. */
export function parseAppKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  let key: Buffer | undefined;
  if (trimmed.startsWith('base64:')) {
    const body = trimmed.slice('base64:'.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(body)) key = Buffer.from(body, 'base64');
  } else if (/^[0-9a-fA-F]{64}$/.test(trimmed)) {
    key = Buffer.from(trimmed, 'hex');
  }
  return key?.length === 32 ? key : undefined;
}

export function formatAppKey(key: Buffer): string {
  return `base64:${key.toString('base64')}`;
}

export function generateAppKey(): string {
  return formatAppKey(randomBytes(32));
}
