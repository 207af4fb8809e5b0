import { snakeKey } from './snake-key.js';

/** Objects and arrays nested deeper than this are refused (a bound on work and recursion). */
export const MAX_BODY_DEPTH = 64;

export const BODY_TOO_DEEP_MESSAGE = `The request body is nested too deeply: at most ${MAX_BODY_DEPTH} levels of objects and arrays are allowed.`;

export class BodyTooDeepError extends Error {
  constructor() {
    super(BODY_TOO_DEEP_MESSAGE);
    this.name = 'BodyTooDeepError';
  }
}

/**
 * The one key that a later naive merge (`target[key] = value`) would turn into a prototype
 * write. No field is called that, so it is dropped; `constructor` and the rest stay plain
 * own properties.
 */
const DROPPED = '__proto__';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function normalise(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) {
    if (depth > MAX_BODY_DEPTH) throw new BodyTooDeepError();
    return value.map((item: unknown) => normalise(item, depth + 1));
  }
  if (!isPlainObject(value)) return value;
  if (depth > MAX_BODY_DEPTH) throw new BodyTooDeepError();
  // A Map keeps "the later of two colliding keys wins" without touching prototypes;
  // Object.fromEntries defines own data properties, never calling a setter.
  const entries = new Map<string, unknown>();
  for (const [key, item] of Object.entries(value)) {
    const name = snakeKey(key);
    if (name === DROPPED) continue;
    entries.set(name, normalise(item, depth + 1));
  }
  return Object.fromEntries(entries);
}

/**
 * A parsed JSON body with every object key in snake_case, at every depth and inside arrays.
 * Values are untouched; when two keys of one object collide, the later one
 * wins, as a whole (no deep merge). Throws BodyTooDeepError past MAX_BODY_DEPTH levels.
 */
export function normaliseKeys(body: unknown): unknown {
  return normalise(body, 1);
}

/** Whether a parsed JSON value nests objects and arrays deeper than `max` (iterative). */
export function nestedDeeperThan(value: unknown, max: number = MAX_BODY_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const [item, depth] = entry;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
