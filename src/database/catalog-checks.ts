import type { Queryable } from './change-capture.js';

/*
 * What a migration that runs step by step (without one transaction of its own) reads to skip a
 * step it finished before it gave way to a lock. The catalog is read instead of running an
 * `IF EXISTS` or `IF NOT EXISTS` statement: those take the table's lock even when there is
 * nothing to do, and every lock taken again behind a serving release's requests is one more
 * chance to give way again.
 */

/** Whether `sql` answers any row (of the catalog, or of a table whose rows a step still has to change). */
export async function anyRow(q: Queryable, sql: string, parameters: unknown[] = []): Promise<boolean> {
  const rows = (await q.query(`SELECT EXISTS (${sql}) AS found`, parameters)) as { found: boolean }[];
  return rows[0]?.found === true;
}

export const constraintExists = (q: Queryable, table: string, name: string): Promise<boolean> =>
  anyRow(q, `SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2`, [table, name]);

/** The constraint exists and is validated (not NOT VALID). */
export const constraintValid = (q: Queryable, table: string, name: string): Promise<boolean> =>
  anyRow(q, `SELECT 1 FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2 AND convalidated`, [
    table,
    name,
  ]);

export const columnExists = (q: Queryable, table: string, column: string): Promise<boolean> =>
  anyRow(q, `SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2 AND NOT attisdropped`, [
    table,
    column,
  ]);

export const columnNotNull = (q: Queryable, table: string, column: string): Promise<boolean> =>
  anyRow(q, `SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2 AND attnotnull`, [
    table,
    column,
  ]);

export const triggerExists = (q: Queryable, table: string, name: string): Promise<boolean> =>
  anyRow(q, `SELECT 1 FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = $2`, [table, name]);
