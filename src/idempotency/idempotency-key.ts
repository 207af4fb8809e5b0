import { ResourceValidationException } from '../common/http/validation-failed.exception.js';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_KEY_MAX_CHARS = 255;

/** Visible ASCII: `!` to `~`, no space, no control character. */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export const IdempotencyMessages = {
  empty: `The ${IDEMPOTENCY_KEY_HEADER} header must not be empty.`,
  tooLong: `The ${IDEMPOTENCY_KEY_HEADER} header must not be greater than ${IDEMPOTENCY_KEY_MAX_CHARS} characters.`,
  notVisibleAscii: `The ${IDEMPOTENCY_KEY_HEADER} header must contain only visible ASCII characters (no spaces).`,
  reused: `The ${IDEMPOTENCY_KEY_HEADER} was already used for a different request (another method, path or body).`,
} as const;

/**
 * The key of a request, or undefined when it sent none. A key that is empty, longer than 255
 * characters or not visible ASCII is a 400 with the validation envelope, under the header's
 * name. The value is taken as it is (no trimming beyond what HTTP does, no unquoting).
 */
export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  // Node joins repeated headers it does not know with ", ", so an array cannot arrive; be safe.
  const value = Array.isArray(header) ? header.join(', ') : header;
  let problem: string | undefined;
  if (value === '') problem = IdempotencyMessages.empty;
  else if (value.length > IDEMPOTENCY_KEY_MAX_CHARS) problem = IdempotencyMessages.tooLong;
  else if (!VISIBLE_ASCII.test(value)) problem = IdempotencyMessages.notVisibleAscii;
  if (problem !== undefined) throw new ResourceValidationException({ [IDEMPOTENCY_KEY_HEADER]: [problem] });
  return value;
}
