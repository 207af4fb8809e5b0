/**
 * The change capture of a table, as SQL a migration runs: the capture function in the shape the
 * TenantsNeverWait migration gave every captured table (announce with change_log_register, then
 * write the log, then a version delta per list the entries belong to), its three statement
 * triggers, and the record types `change_log` accepts. Knows no resource: a migration passes the
 * table, the record type and the list (table) of each type its entries name.
 *
 * `addTenantTable` (tenant-table-migration.ts) calls this for a new tenant table's own records;
 * a table of rows presented inside another record calls `addChangeCapture` with its own entries.
 */

/** What runs SQL in a migration (a QueryRunner) or a test (a DataSource). */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

export interface TableCapture {
  /** Names the trigger function (`change_log_capture_<name>`) and triggers (`<name>_changes_*`). */
  readonly name: string;
  readonly table: string;
  /** Columns that identify a row, to pair the old and new rows of an UPDATE. */
  readonly key: readonly string[];
  /**
   * Entries `(enterprise_id, record_type, record_id, action)` for the rows of `rows`; `action`
   * is 'upserted' for new rows and 'removed' for old ones.
   */
  readonly entries: (rows: string, action: string) => string;
  /**
   * Whether the table has the row-count triggers (a record's own tenant table): its inserts and
   * deletes already add a version delta, so only its updates add one here.
   */
  readonly counted: boolean;
  /**
   * The list whose version each record type of `entries` moves, by type. There is no default:
   * an entry of a type missing here fails the writing statement (table_name is NOT NULL).
   */
  readonly listOfType: Readonly<Record<string, string>>;
}

const ACTION = { new: `'upserted'::text`, old: `'removed'::text` } as const;
type Side = keyof typeof ACTION;

/**
 * The condition on an entry's upsert that leaves the transaction's own entries as they are: the
 * row version is this transaction's and its position is at or after the one the transaction took
 * first (change_log_register keeps it since migration ChangesOncePerTransaction, which also gave
 * the capture functions of earlier migrations this condition), which no older row version can
 * match, even one whose 32-bit xmin came round again. Written under a savepoint, an entry is
 * simply written again.
 */
const ONCE_PER_TRANSACTION = `WHERE NOT coalesce(c.action = EXCLUDED.action AND c.xmin = pg_current_xact_id()::xid
           AND c.seq >= nullif(current_setting('change_log.first_seq', true), '')::bigint, false)`;

const ENTERPRISE_EXISTS = `EXISTS (SELECT 1 FROM enterprises x WHERE x.id = e.enterprise_id)`;

/**
 * A record's entry moves to the writing transaction's position, unless that transaction already
 * wrote it with the same action: then it stays where the transaction first put it (its readers
 * see it at commit either way), and a statement over rows of records the transaction already
 * logged, an import's nested rows after its people, rewrites no log row.
 */
const CHANGE_LOG_UPSERT = `ON CONFLICT (enterprise_id, record_type, record_id) DO UPDATE
       SET action = EXCLUDED.action, changed_xid = EXCLUDED.changed_xid, seq = EXCLUDED.seq,
           changed_at = EXCLUDED.changed_at ${ONCE_PER_TRANSACTION}`;

/** The record types `entries` may write, for a table whose rows are records of one type. */
export function ownRecords(table: string, type: string): TableCapture {
  return {
    name: table,
    table,
    key: ['id'],
    entries: (rows, action) => `SELECT r.enterprise_id, '${type}'::text, r.id, ${action} FROM ${rows} r`,
    counted: true,
    listOfType: { [type]: table },
  };
}

function listOfTypeSql(listOfType: Readonly<Record<string, string>>): string {
  const cases = Object.entries(listOfType).map(([type, table]) => `WHEN '${type}' THEN '${table}'`);
  if (cases.length === 0) throw new Error('A capture needs the list of at least one record type');
  return `CASE record_type ${cases.join(' ')} END`;
}

function entriesOf(capture: TableCapture, rows: string, side: Side): string {
  const order = side === 'old' ? 1 : 2;
  return `SELECT x.*, ${order} AS side FROM (${capture.entries(rows, ACTION[side])}) x(enterprise_id, record_type, record_id, action)`;
}

/** The rows of one side of an UPDATE that really changed (a no-op UPDATE leaves no entry). */
function changedRows(capture: TableCapture, side: Side): string {
  const [mine, theirs] = side === 'new' ? ['new_rows', 'old_rows'] : ['old_rows', 'new_rows'];
  const on = capture.key.map((column) => `t.${column} = m.${column}`).join(' AND ');
  return `(SELECT m.* FROM ${mine} m LEFT JOIN ${theirs} t ON ${on} WHERE m IS DISTINCT FROM t)`;
}

/**
 * Writes the entries of `source`, the new side winning over the old for one record, after
 * announcing the transaction (change_log_register, evaluated once before the first entry takes
 * its position). `versioned`: each entry's list gets a version delta.
 */
function writeEntries(capture: TableCapture, source: string, versioned: boolean): string {
  const insert = `INSERT INTO change_log AS c (enterprise_id, record_type, record_id, action)
        SELECT DISTINCT ON (e.enterprise_id, e.record_type, e.record_id) e.enterprise_id, e.record_type, e.record_id, e.action
          FROM entries e
         WHERE (SELECT change_log_register(ARRAY(SELECT DISTINCT enterprise_id FROM entries)))
         ORDER BY e.enterprise_id, e.record_type, e.record_id, e.side DESC
        ${CHANGE_LOG_UPSERT}`;
  const entries = `entries AS MATERIALIZED (
        SELECT e.* FROM (${source}) e WHERE e.enterprise_id IS NOT NULL AND e.record_id IS NOT NULL AND ${ENTERPRISE_EXISTS}
      )`;
  if (!versioned) return `WITH ${entries} ${insert};`;
  return `WITH ${entries}, written AS (${insert} RETURNING c.enterprise_id, c.record_type)
      INSERT INTO tenant_count_deltas (enterprise_id, table_name, row_delta)
      SELECT DISTINCT enterprise_id, ${listOfTypeSql(capture.listOfType)}, 0 FROM written;`;
}

/** `CREATE OR REPLACE FUNCTION change_log_capture_<name>()`, for a statement trigger with transition tables. */
export function captureFunctionSql(capture: TableCapture): string {
  const changed = `${entriesOf(capture, changedRows(capture, 'old'), 'old')} UNION ALL ${entriesOf(capture, changedRows(capture, 'new'), 'new')}`;
  return `
    CREATE OR REPLACE FUNCTION change_log_capture_${capture.name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${writeEntries(capture, entriesOf(capture, 'new_rows', 'new'), !capture.counted)}
      ELSIF TG_OP = 'DELETE' THEN
        ${writeEntries(capture, entriesOf(capture, 'old_rows', 'old'), !capture.counted)}
      ELSE
        ${writeEntries(capture, changed, true)}
      END IF;
      RETURN NULL;
    END $$`;
}

const CAPTURED_OPERATIONS = ['insert', 'update', 'delete'] as const;

export function captureTriggersSql(capture: TableCapture): string[] {
  const fn = `change_log_capture_${capture.name}()`;
  const prefix = `${capture.name}_changes`;
  return [
    `CREATE TRIGGER ${prefix}_insert AFTER INSERT ON ${capture.table}
       REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}`,
    `CREATE TRIGGER ${prefix}_update AFTER UPDATE ON ${capture.table}
       REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}`,
    `CREATE TRIGGER ${prefix}_delete AFTER DELETE ON ${capture.table}
       REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}`,
  ];
}

/** The record types change_log's CHECK accepts, as the database has them now. */
export async function changeLogTypes(q: Queryable): Promise<string[]> {
  const rows = (await q.query(
    `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint
      WHERE conrelid = 'change_log'::regclass AND conname = 'change_log_record_type_check'`,
  )) as { definition: string }[];
  const [row] = rows;
  if (!row) throw new Error('change_log has no change_log_record_type_check constraint');
  return [...row.definition.matchAll(/'([^']+)'/g)].map((match) => match[1] ?? '');
}

async function setChangeLogTypes(q: Queryable, types: readonly string[]): Promise<void> {
  await q.query(`ALTER TABLE change_log DROP CONSTRAINT change_log_record_type_check`);
  await q.query(
    `ALTER TABLE change_log ADD CONSTRAINT change_log_record_type_check
       CHECK (record_type IN (${types.map((type) => `'${type}'`).join(', ')}))`,
  );
}

function checkTypeName(type: string): void {
  if (!/^[a-z][a-z_]*$/.test(type)) throw new Error(`A change type is lower-case words: "${type}"`);
}

/**
 * Captures `capture.table` into the change log: accepts its record types in change_log's CHECK,
 * creates the function and triggers, and logs the rows already there (a new table has none).
 */
export async function addChangeCapture(q: Queryable, capture: TableCapture): Promise<void> {
  const types = Object.keys(capture.listOfType);
  types.forEach(checkTypeName);
  const accepted = await changeLogTypes(q);
  const added = types.filter((type) => !accepted.includes(type));
  if (added.length > 0) await setChangeLogTypes(q, [...accepted, ...added]);
  await q.query(captureFunctionSql(capture));
  for (const trigger of captureTriggersSql(capture)) await q.query(trigger);
  await q.query(`
    WITH entries AS (${capture.entries(capture.table, ACTION.new)})
    INSERT INTO change_log (enterprise_id, record_type, record_id, action)
    SELECT DISTINCT ON (e.enterprise_id, e.record_type, e.record_id) e.*
      FROM entries e (enterprise_id, record_type, record_id, action)
     WHERE e.enterprise_id IS NOT NULL AND e.record_id IS NOT NULL
    ON CONFLICT DO NOTHING`);
}

/**
 * The reverse of `addChangeCapture`: the triggers and function go; with `types`, the log's
 * entries of those types and the types themselves leave change_log's CHECK.
 */
export async function removeChangeCapture(
  q: Queryable,
  capture: Pick<TableCapture, 'name' | 'table'>,
  types: readonly string[] = [],
): Promise<void> {
  for (const operation of CAPTURED_OPERATIONS)
    await q.query(`DROP TRIGGER IF EXISTS ${capture.name}_changes_${operation} ON ${capture.table}`);
  await q.query(`DROP FUNCTION IF EXISTS change_log_capture_${capture.name}()`);
  if (types.length === 0) return;
  await q.query(`DELETE FROM change_log WHERE record_type = ANY($1::text[])`, [[...types]]);
  await setChangeLogTypes(
    q,
    (await changeLogTypes(q)).filter((type) => !types.includes(type)),
  );
}
