import { addChangeCapture, ownRecords, removeChangeCapture, type Queryable } from './change-capture.js';

/**
 * What every tenant table needs besides its columns, for a migration to call once per table:
 * the list index of the list order (newest first) and the row-count triggers behind a list's
 * `meta.total`. The trigger functions themselves are created once, by migration TenantRowCounts
 * (and replaced by TenantsNeverWait); a table created later calls `addTenantTable` in its own
 * migration (docs/extending.md).
 */

const ROW_COUNT_TRIGGERS = ['insert', 'delete', 'move', 'truncate'] as const;

/**
 * Advisory lock namespaces (the first of the two 32-bit keys). A writer of the change log holds
 * a shared lock on (CHANGE_LOG_ENTERPRISE_LOCK, hash of each enterprise it writes), or on
 * (CHANGE_LOG_ALL_ENTERPRISES_LOCK, 0) past MARKED_ENTERPRISES_BEFORE_ALL enterprises; the
 * background step folding row-count deltas holds (COUNT_FOLD_LOCK, 0).
 */
export const CHANGE_LOG_ENTERPRISE_LOCK = 1179206448;
export const CHANGE_LOG_ALL_ENTERPRISES_LOCK = 1179206449;
export const COUNT_FOLD_LOCK = 1179206450;
export const MARKED_ENTERPRISES_BEFORE_ALL = 48;

/**
 * Refuses a TRUNCATE: it names no row, so neither the change feed nor a record's ETag could say
 * what it removed. DELETE is captured row by row.
 */
export const REFUSE_TRUNCATE_FUNCTION = `
  CREATE OR REPLACE FUNCTION refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'TRUNCATE of % is refused: use DELETE, so the change feed and the ETags see what was removed', TG_TABLE_NAME
      USING ERRCODE = 'feature_not_supported';
  END $$`;

export function refuseTruncateTrigger(table: string): string {
  return `CREATE TRIGGER ${table}_refuse_truncate BEFORE TRUNCATE ON ${table}
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_truncate()`;
}

/** The (enterprise_id, created_at DESC, id DESC) index a list page is read from. */
export async function createListIndex(q: Queryable, table: string): Promise<void> {
  await q.query(`CREATE INDEX ${table}_enterprise_newest_idx ON ${table} (enterprise_id, created_at DESC, id DESC)`);
}

/**
 * Per-enterprise row counts kept by triggers: inserts and deletes per statement through
 * transition tables, a move to another enterprise per row (and only then), truncation. Back-fills
 * the counts of rows already there.
 */
export async function createRowCountTriggers(q: Queryable, table: string): Promise<void> {
  await q.query(`
        CREATE TRIGGER ${table}_count_insert AFTER INSERT ON ${table}
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_row_counts_on_insert()`);
  await q.query(`
        CREATE TRIGGER ${table}_count_delete AFTER DELETE ON ${table}
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION tenant_row_counts_on_delete()`);
  await q.query(`
        CREATE TRIGGER ${table}_count_move AFTER UPDATE OF enterprise_id ON ${table}
        FOR EACH ROW WHEN (OLD.enterprise_id IS DISTINCT FROM NEW.enterprise_id)
        EXECUTE FUNCTION tenant_row_counts_on_move()`);
  await q.query(`
        CREATE TRIGGER ${table}_count_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION tenant_row_counts_on_truncate()`);
  await q.query(`
        INSERT INTO tenant_row_counts (enterprise_id, table_name, row_count)
        SELECT enterprise_id, '${table}', count(*) FROM ${table} WHERE enterprise_id IS NOT NULL GROUP BY enterprise_id`);
}

export async function dropRowCountTriggers(q: Queryable, table: string): Promise<void> {
  for (const trigger of ROW_COUNT_TRIGGERS)
    await q.query(`DROP TRIGGER IF EXISTS ${table}_count_${trigger} ON ${table}`);
  await q.query(`DELETE FROM tenant_row_counts WHERE table_name = $1`, [table]);
}

/**
 * Whether a new tenant table joins the change feed. Capture is the rule: `{ capture: { type } }`
 * names the record type of its rows (the feed's `type`, the descriptor's `changeType`, a name in
 * CHANGE_TYPES). Leaving it out takes a reason, for the reader of the migration and for the
 * descriptor's own `noChangeType`.
 */
export type TenantTableOptions =
  { readonly capture: { readonly type: string } } | { readonly capture: false; readonly reason: string };

/**
 * A new tenant table's index, row counts and change capture, in the migration that creates the
 * table: counted by the delta triggers, a TRUNCATE of it refused, and (unless told why not) its
 * inserts, updates and deletes written to the change log under its record type, which
 * change_log's CHECK then accepts, each change moving the table's list version.
 */
export async function addTenantTable(q: Queryable, table: string, options: TenantTableOptions): Promise<void> {
  await createListIndex(q, table);
  await createRowCountTriggers(q, table);
  await q.query(`DROP TRIGGER ${table}_count_truncate ON ${table}`);
  await q.query(refuseTruncateTrigger(table));
  if (options.capture) await addChangeCapture(q, ownRecords(table, options.capture.type));
  else if (options.reason.trim() === '') throw new Error(`addTenantTable(${table}): say why it is not captured`);
}

/** The reverse of `addTenantTable`, before the table is dropped. */
export async function removeTenantTable(q: Queryable, table: string, options: TenantTableOptions): Promise<void> {
  if (options.capture) await removeChangeCapture(q, { name: table, table }, [options.capture.type]);
  await q.query(`DROP TRIGGER IF EXISTS ${table}_refuse_truncate ON ${table}`);
  await dropRowCountTriggers(q, table);
  await q.query(`DELETE FROM tenant_count_deltas WHERE table_name = $1`, [table]);
  await q.query(`DROP INDEX IF EXISTS ${table}_enterprise_newest_idx`);
}
