/**
 * Whether `value` is a uuid in its text form (8-4-4-4-12 hex digits, either case). Read a
 * character at a time rather than by a regular expression: batches of ids read from the
 * database are checked on every list page and feed page.
 */
export function isUuid(value: string): boolean {
  if (value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false;
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) {
      return false;
    }
  }
  return true;
}
