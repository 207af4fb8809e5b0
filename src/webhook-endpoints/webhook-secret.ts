import { randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
/** 32 random bytes: the standard asks for 24 at least. */
const SECRET_BYTES = 32;

/** A new signing secret as Standard Webhooks writes them: `whsec_` and base64 of random bytes. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}
