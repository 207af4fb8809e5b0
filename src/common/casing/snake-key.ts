const UPPER = /^\p{Lu}$/u;
const LOWER = /^\p{Ll}$/u;
const DIGIT = /^\p{Nd}$/u;
const SEPARATOR = /^[\s-]$/u;

const isUpper = (c: string | undefined): boolean => c !== undefined && UPPER.test(c);
const isLower = (c: string | undefined): boolean => c !== undefined && LOWER.test(c);
const isDigit = (c: string | undefined): boolean => c !== undefined && DIGIT.test(c);

/** Whether the digit run starting at `i` is followed by an upper-case letter (`Last3Years`). */
function digitsThenUpper(chars: readonly string[], i: number): boolean {
  let j = i;
  while (isDigit(chars[j])) j++;
  return isUpper(chars[j]);
}

/** Whether a new word starts at `chars[i]`. */
function startsWord(chars: readonly string[], i: number): boolean {
  const prev = chars[i - 1];
  const char = chars[i];
  const next = chars[i + 1];
  if (isUpper(char)) {
    // firstName, Last3Years
    if (isLower(prev) || isDigit(prev)) return true;
    // HTMLTitle: the last capital of an acronym starts the next word.
    return isUpper(prev) && isLower(next);
  }
  // FinanceLast3Years: a number between words is a word of its own; a trailing one
  // (BusinessName2, Line1) stays with its word, so v1's PascalCase names round-trip.
  return isDigit(char) && (isLower(prev) || isUpper(prev)) && digitsThenUpper(chars, i);
}

/**
 * A request key in snake_case, acronym-aware: `FirstName`, `firstName` and
 * `first_name` give `first_name`; `PersonID` gives `person_id`; `HTMLTitle` gives `html_title`.
 * Existing underscores are kept, hyphens and spaces become underscores, everything is
 * lower-cased. Keys already in snake_case are returned unchanged.
 */
export function snakeKey(key: string): string {
  const chars = Array.from(key);
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] ?? '';
    if (SEPARATOR.test(char)) {
      out += '_';
      continue;
    }
    if (i > 0 && startsWord(chars, i)) out += '_';
    out += char.toLowerCase();
  }
  return out;
}
