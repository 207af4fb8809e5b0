/** Ids from a webhook payload are the sender's text: cut to a length that is safe to log. */
export function logSafe(value: string): string {
  return value.length > 100 ? `${value.slice(0, 100)}...` : value;
}
