/** A webhook body read as JSON; `undefined` when it is not a JSON object. */
export type Payload = Record<string, unknown>;

export function parsePayload(body: Buffer): Payload | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Payload) : undefined;
  } catch {
    return undefined;
  }
}

function child(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** Reads a path of keys; only non-empty strings and numbers count as present. */
export function textAt(payload: Payload, ...path: string[]): string | undefined {
  let value: unknown = payload;
  for (const key of path) value = child(value, key);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function firstText(payload: Payload, paths: readonly (readonly string[])[]): string | undefined {
  for (const path of paths) {
    const found = textAt(payload, ...path);
    if (found !== undefined) return found;
  }
  return undefined;
}
