/** A JSON scalar, as a body may send it and a jsonb column keeps it (its type included). */
export type JsonScalar = string | number | boolean | null;

/** varchar columns (`VarcharColumn`) hold at most this many characters. */
export const VARCHAR_MAX_CHARS = 255;

export function isJsonScalar(value: unknown): value is JsonScalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** An empty or whitespace-only string counts as absent and is stored as null (as Laravel's input). */
export function blankToNull(value: unknown): unknown {
  return typeof value === 'string' && value.trim() === '' ? null : value;
}

/** Length in characters (code points), as PostgreSQL and Laravel's `max` count it. */
export function charLength(value: string): number {
  return value.length - (value.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0);
}

// A NUL cannot be stored in text or jsonb, and jsonb refuses an unpaired surrogate escape.
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether PostgreSQL can store the string as text and inside jsonb. */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** Whether every key and string inside a JSON value is storable (iterative). */
export function isStorableJson(value: unknown): boolean {
  const stack: unknown[] = [value];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item === 'string') {
      if (!isStorableText(item)) return false;
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        if (!isStorableText(key)) return false;
        stack.push(child);
      }
    }
  }
  return true;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
