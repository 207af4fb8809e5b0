import { selectRows, type SqlExecutor } from '../../database/sql.js';

export interface ColumnSpec {
  name: string;
  /** The column's SQL type, as `jsonb_to_recordset` should read the JSON value. */
  type: string;
}

export interface UpsertOutcome {
  created: number;
  updated: number;
}

/** Rows per statement: one JSON parameter each, small enough to keep statements quick. */
const CHUNK = 1000;

function valueOf(column: ColumnSpec): string {
  // A JSON null read as jsonb is the JSON value null; the tables keep SQL NULL for "not given".
  return column.type === 'jsonb' ? `NULLIF(input.${column.name}, 'null'::jsonb)` : `input.${column.name}`;
}

/**
 * Inserts rows that are new and updates rows whose values differ, in one statement per chunk.
 * A row whose values are all the same is not touched, so importing a file twice changes nothing
 * (its `updated_at` stays). Timestamps absent from a row (null here) default to now on insert;
 * on update `created_at` is kept and `updated_at` becomes now.
 */
export async function upsertRows(
  db: SqlExecutor,
  table: string,
  columns: readonly ColumnSpec[],
  rows: readonly Record<string, unknown>[],
): Promise<UpsertOutcome> {
  const { created, updated } = await upsertRowsReporting(db, table, columns, rows);
  return { created, updated };
}

/** upsertRows, also naming the rows it wrote (inserted or changed). */
export async function upsertRowsReporting(
  db: SqlExecutor,
  table: string,
  columns: readonly ColumnSpec[],
  rows: readonly Record<string, unknown>[],
): Promise<UpsertOutcome & { written: Set<string> }> {
  const outcome = { created: 0, updated: 0, written: new Set<string>() };
  if (rows.length === 0) return outcome;
  const definition = [
    'id uuid',
    ...columns.map((c) => `${c.name} ${c.type}`),
    'created_at timestamptz(3)',
    'updated_at timestamptz(3)',
  ].join(', ');
  const names = columns.map((c) => c.name);
  const values = columns.map(valueOf);
  const sql = `
    WITH input AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS input(${definition})),
    changed AS (
      UPDATE ${table} AS t
         SET ${names.map((n, i) => `${n} = ${values[i]}`).join(', ')},
             created_at = COALESCE(input.created_at, t.created_at),
             updated_at = COALESCE(input.updated_at, now())
        FROM input
       WHERE t.id = input.id
         AND ((${names.map((n) => `t.${n}`).join(', ')}) IS DISTINCT FROM (${values.join(', ')})
              OR (input.created_at IS NOT NULL AND input.created_at IS DISTINCT FROM t.created_at)
              OR (input.updated_at IS NOT NULL AND input.updated_at IS DISTINCT FROM t.updated_at))
      RETURNING t.id
    ),
    inserted AS (
      INSERT INTO ${table} (id, ${names.join(', ')}, created_at, updated_at)
      SELECT input.id, ${values.join(', ')}, COALESCE(input.created_at, now()), COALESCE(input.updated_at, now())
        FROM input
       WHERE NOT EXISTS (SELECT 1 FROM ${table} AS t WHERE t.id = input.id)
      RETURNING id
    )
    SELECT (SELECT count(*) FROM changed)::int AS updated, (SELECT count(*) FROM inserted)::int AS created,
           ARRAY(SELECT id::text FROM changed UNION ALL SELECT id::text FROM inserted) AS written`;
  for (let start = 0; start < rows.length; start += CHUNK) {
    const chunk = rows.slice(start, start + CHUNK);
    const [counts] = await selectRows<UpsertOutcome & { written: string[] }>(db, sql, [JSON.stringify(chunk)]);
    outcome.created += counts?.created ?? 0;
    outcome.updated += counts?.updated ?? 0;
    for (const id of counts?.written ?? []) outcome.written.add(id);
  }
  return outcome;
}
