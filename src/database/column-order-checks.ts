import { getMetadataArgsStorage } from 'typeorm';
import { columnNamesOf } from './entity-columns.js';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM keys metadata by the class itself
type EntityClass = Function;

/** A CHECK of an entity that orders two of its columns: `ends_at > starts_at`. */
export interface ColumnOrder {
  readonly check: string;
  /** The column that must hold the greater value. */
  readonly later: string;
  readonly earlier: string;
  /** `>=`: the two may be equal. */
  readonly orEqual: boolean;
}

/** An entity's CHECKs over two or more of its columns, as the generic machinery reads them. */
export interface CrossColumnChecks {
  /** Checks made only of orders of two columns (and `column IS NULL` alternatives). */
  readonly orders: readonly ColumnOrder[];
  /** Every other check over several columns: sample records need the descriptor's `validSample`. */
  readonly others: readonly { readonly check: string; readonly expression: string }[];
}

const COMPARISON = /"?([a-z_][a-z0-9_]*)"?\s*(<=|>=|<|>)\s*"?([a-z_][a-z0-9_]*)"?/gi;
/** What may surround the comparisons of an order check: `ends_at IS NULL OR (ends_at > starts_at)`. */
const CONNECTIVES = /"?[a-z_][a-z0-9_]*"?\s+IS\s+NULL|\bOR\b|\bAND\b|[()\s]/gi;

/**
 * The entity's `@Check`s that involve two or more of its columns. The entity is the one place a
 * CHECK is written (test/e2e/entities-match-migrations holds the migration to it); an order of
 * two columns is understood by the derived import field checks, the sample records and the test
 * helpers that choose values, anything else is named so that the descriptor says how to satisfy it.
 */
export function crossColumnChecks(entity: EntityClass): CrossColumnChecks {
  const columns = new Set(columnNamesOf(entity));
  const orders: ColumnOrder[] = [];
  const others: { check: string; expression: string }[] = [];
  for (const check of getMetadataArgsStorage().checks) {
    if (check.target !== entity) continue;
    const name = check.name ?? check.expression;
    const mentioned = [...columns].filter((column) => new RegExp(`\\b${column}\\b`).test(check.expression));
    if (mentioned.length < 2) continue;
    const found: ColumnOrder[] = [];
    let rest = check.expression;
    for (const match of check.expression.matchAll(COMPARISON)) {
      const [text, left = '', operator = '', right = ''] = match;
      if (!columns.has(left) || !columns.has(right)) continue;
      const greaterOnLeft = operator.startsWith('>');
      found.push({
        check: name,
        later: greaterOnLeft ? left : right,
        earlier: greaterOnLeft ? right : left,
        orEqual: operator.endsWith('='),
      });
      rest = rest.replace(text, ' ');
    }
    if (found.length > 0 && rest.replace(CONNECTIVES, '') === '') orders.push(...found);
    else others.push({ check: name, expression: check.expression });
  }
  return { orders, others };
}

/**
 * Each ordered column's rank: 0 for a column no order puts after another, else one more than the
 * highest rank of the columns it must follow. A value plus its rank (an hour, a day, one) then
 * satisfies every order check, for any base value.
 */
export function orderRanks(entity: EntityClass): ReadonlyMap<string, number> {
  const { orders } = crossColumnChecks(entity);
  const ranks = new Map<string, number>();
  const rankOf = (column: string, seen: readonly string[]): number => {
    if (seen.includes(column)) throw new Error(`${entity.name}: its CHECKs order ${seen.join(', ')} in a circle`);
    const known = ranks.get(column);
    if (known !== undefined) return known;
    const before = orders.filter((order) => order.later === column).map((order) => order.earlier);
    const rank = before.length === 0 ? 0 : 1 + Math.max(...before.map((earlier) => rankOf(earlier, [...seen, column])));
    ranks.set(column, rank);
    return rank;
  };
  for (const order of orders) rankOf(order.later, []);
  return ranks;
}

/** Whether `later` and `earlier` (values as a record or a file holds them) keep the order. */
export function keepsOrder(later: unknown, earlier: unknown, orEqual: boolean): boolean {
  if (later === null || later === undefined || earlier === null || earlier === undefined) return true;
  const comparable = (value: unknown): number | string => {
    if (typeof value === 'number') return value;
    const text = String(value);
    if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
    const time = Date.parse(text);
    return Number.isNaN(time) ? text : time;
  };
  const [a, b] = [comparable(later), comparable(earlier)];
  return orEqual ? a >= b : a > b;
}
