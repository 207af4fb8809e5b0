import { uuidArray } from './uuid-array.js';

/**
 * How a statement matches a set of ids: `column = $n` when there is one, `column = ANY($n)`
 * when there are several. A prepared statement's generic plan counts an array parameter as ten
 * elements, so for a statement that is read with one id (a retrieve) the generic plan looked
 * dearer than the one-row custom plans and PostgreSQL planned the statement again at every
 * execution (about 3 ms for a person, to run it in 0.2). With `= $n` both plans cost the same
 * and the generic one is kept after the fifth execution. The two shapes are two statements,
 * each with its own prepared name.
 */
export interface IdsMatch {
  readonly one: boolean;
  /** The parameter: the id, or the ids as a `uuid[]`. */
  readonly param: string | readonly string[];
}

export function idsMatch(ids: readonly string[]): IdsMatch {
  const [only] = ids;
  return ids.length === 1 && only !== undefined ? { one: true, param: only } : { one: false, param: uuidArray(ids) };
}

/** The condition on `column` for parameter `$placeholder`. */
export function idsMatchSql(column: string, placeholder: number, one: boolean): string {
  return one ? `${column} = $${placeholder}::uuid` : `${column} = ANY($${placeholder}::uuid[])`;
}
