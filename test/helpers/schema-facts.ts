import { selectRows, type SqlExecutor } from '../../src/database/sql.js';

/**
 * What the migrated schema says about itself (information_schema), for tests that must follow
 * the schema instead of a hand-kept list of tables and references.
 */

export interface ForeignKeyFact {
  readonly name: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly referencedTable: string;
  readonly referencedColumns: readonly string[];
}

/** The columns of a table of the public schema, in their order; empty when there is no such table. */
export async function tableColumns(db: SqlExecutor, table: string): Promise<string[]> {
  const rows = await selectRows<{ column_name: string }>(
    db,
    `SELECT column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** The primary-key columns of a table, in key order. */
export async function primaryKey(db: SqlExecutor, table: string): Promise<string[]> {
  const rows = await selectRows<{ column_name: string }>(
    db,
    `SELECT k.column_name FROM information_schema.table_constraints c
       JOIN information_schema.key_column_usage k
         ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name
      WHERE c.table_schema = 'public' AND c.table_name = $1 AND c.constraint_type = 'PRIMARY KEY'
      ORDER BY k.ordinal_position`,
    [table],
  );
  return rows.map((r) => r.column_name);
}

/** Every foreign key of the public schema, composite ones with their columns paired in order. */
export async function foreignKeys(db: SqlExecutor): Promise<ForeignKeyFact[]> {
  const rows = await selectRows<{
    name: string;
    table_name: string;
    column_name: string;
    ref_table: string;
    ref_column: string;
  }>(
    db,
    `SELECT c.constraint_name AS name, c.table_name, k.column_name,
            r.table_name AS ref_table, r.column_name AS ref_column
       FROM information_schema.table_constraints c
       JOIN information_schema.key_column_usage k
         ON k.constraint_schema = c.constraint_schema AND k.constraint_name = c.constraint_name
       JOIN information_schema.referential_constraints rc
         ON rc.constraint_schema = c.constraint_schema AND rc.constraint_name = c.constraint_name
       JOIN information_schema.key_column_usage r
         ON r.constraint_schema = rc.unique_constraint_schema AND r.constraint_name = rc.unique_constraint_name
        AND r.ordinal_position = k.position_in_unique_constraint
      WHERE c.table_schema = 'public' AND c.constraint_type = 'FOREIGN KEY'
      ORDER BY c.table_name, c.constraint_name, k.ordinal_position`,
  );
  const facts = new Map<
    string,
    { name: string; table: string; columns: string[]; referencedTable: string; referencedColumns: string[] }
  >();
  for (const row of rows) {
    const key = `${row.table_name}.${row.name}`;
    const fact = facts.get(key) ?? {
      name: row.name,
      table: row.table_name,
      columns: [],
      referencedTable: row.ref_table,
      referencedColumns: [],
    };
    fact.columns.push(row.column_name);
    fact.referencedColumns.push(row.ref_column);
    facts.set(key, fact);
  }
  return [...facts.values()];
}
