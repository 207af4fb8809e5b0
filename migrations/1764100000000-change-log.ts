import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feed's log: one row per record and enterprise (never one per write), written by
 * triggers in the database so every writer is captured: the API, the importer, webhooks and a
 * hand-written SQL fix alike.
 *
 * A row's position is (changed_xid, seq): the id of the transaction that last changed the
 * record, then a sequence number. Readers hand out only rows whose transaction id is below the
 * reading snapshot's xmin, i.e. of transactions that have finished; every transaction that can
 * still commit has an id at or above that xmin, so it lands after any cursor handed out so far.
 * docs/decisions/0014-change-feed.md gives the whole argument.
 *
 * Triggers are per statement with transition tables (one call however many rows an import
 * writes), and an UPDATE that changes nothing in a row leaves no entry.
 */

export type Side = 'new' | 'old';

export interface Capture {
  /** Names the trigger function and triggers. */
  readonly name: string;
  readonly table: string;
  /** Columns that identify a row, to pair the old and new rows of an UPDATE. */
  readonly key: readonly string[];
  /**
   * Entries `(enterprise_id, record_type, record_id, action)` for the rows of `rows`. `action`
   * is what the side means for the row itself: 'upserted' for new rows, 'removed' for old ones.
   */
  readonly entries: (rows: string, action: string) => string;
}

const self =
  (recordType: string, idColumn = 'id') =>
  (rows: string, action: string): string =>
    `SELECT r.enterprise_id, '${recordType}'::text, r.${idColumn}, ${action} FROM ${rows} r`;

/** The people and organisations that own contact rows change with them. */
const contactOwners = (rows: string): string => `
  SELECT p.enterprise_id, 'person'::text, p.id, 'upserted'::text
    FROM people p WHERE p.id IN (SELECT r.person_id FROM ${rows} r)
  UNION ALL
  SELECT o.enterprise_id, 'organisation'::text, o.id, 'upserted'::text
    FROM organisations o WHERE o.id IN (SELECT r.organisation_id FROM ${rows} r)`;

export const CAPTURES: readonly Capture[] = [
  { name: 'people', table: 'people', key: ['id'], entries: self('person') },
  { name: 'organisations', table: 'organisations', key: ['id'], entries: self('organisation') },
  { name: 'applications', table: 'applications', key: ['id'], entries: self('application') },
  { name: 'quotes', table: 'quotes', key: ['id'], entries: self('quote') },
  { name: 'leads', table: 'leads', key: ['id'], entries: self('lead') },
  { name: 'phone_numbers', table: 'phone_numbers', key: ['id'], entries: contactOwners },
  { name: 'emails', table: 'emails', key: ['id'], entries: contactOwners },
  { name: 'addresses', table: 'addresses', key: ['id'], entries: contactOwners },
  {
    name: 'financials',
    table: 'financials',
    key: ['id'],
    entries: (rows) => `
      SELECT p.enterprise_id, 'person'::text, p.id, 'upserted'::text
        FROM people p WHERE p.id IN (SELECT r.person_id FROM ${rows} r)`,
  },
  {
    // An application's four quote fields come from its active quote, and a quote's record embeds
    // its application: a quote's change is its application's and every sibling quote's.
    name: 'quote_dependents',
    table: 'quotes',
    key: ['id'],
    entries: (rows) => `
      SELECT a.enterprise_id, 'application'::text, a.id, 'upserted'::text
        FROM applications a WHERE a.id IN (SELECT r.application_id FROM ${rows} r)
      UNION ALL
      SELECT q.enterprise_id, 'quote'::text, q.id, 'upserted'::text
        FROM quotes q WHERE q.application_id IN (SELECT r.application_id FROM ${rows} r)`,
  },
  {
    name: 'application_dependents',
    table: 'applications',
    key: ['id'],
    entries: (rows) => `
      SELECT q.enterprise_id, 'quote'::text, q.id, 'upserted'::text
        FROM quotes q WHERE q.application_id IN (SELECT r.id FROM ${rows} r)`,
  },
  // A user is a record of every enterprise it is a member of; leaving one removes it there.
  { name: 'memberships', table: 'memberships', key: ['user_id', 'enterprise_id'], entries: self('user', 'user_id') },
  {
    name: 'users',
    table: 'users',
    key: ['id'],
    entries: (rows) => `
      SELECT m.enterprise_id, 'user'::text, m.user_id, 'upserted'::text
        FROM memberships m WHERE m.user_id IN (SELECT r.id FROM ${rows} r)`,
  },
];

const ACTION: Record<Side, string> = { new: `'upserted'::text`, old: `'removed'::text` };

/** Passes the entries of `source` (ordered by `side`, old before new) to change_log_record. */
function record(source: string): string {
  return `PERFORM change_log_record(
        array_agg(e.enterprise_id ORDER BY e.side), array_agg(e.record_type ORDER BY e.side),
        array_agg(e.record_id ORDER BY e.side), array_agg(e.action ORDER BY e.side))
      FROM (${source}) e;`;
}

export function entriesOf(capture: Capture, rows: string, side: Side): string {
  const order = side === 'old' ? 1 : 2;
  return `SELECT x.*, ${order} AS side FROM (${capture.entries(rows, ACTION[side])}) x(enterprise_id, record_type, record_id, action)`;
}

/** The rows of one side of an UPDATE that really changed (a no-op UPDATE leaves no entry). */
export function changedRows(capture: Capture, side: Side): string {
  const [mine, theirs] = side === 'new' ? ['new_rows', 'old_rows'] : ['old_rows', 'new_rows'];
  const on = capture.key.map((column) => `t.${column} = m.${column}`).join(' AND ');
  return `(SELECT m.* FROM ${mine} m LEFT JOIN ${theirs} t ON ${on} WHERE m IS DISTINCT FROM t)`;
}

/** Exported for the migration that replaces the capture functions to restore them on the way down. */
export function captureFunction(capture: Capture): string {
  return `
    CREATE OR REPLACE FUNCTION change_log_capture_${capture.name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${record(entriesOf(capture, 'new_rows', 'new'))}
      ELSIF TG_OP = 'DELETE' THEN
        ${record(entriesOf(capture, 'old_rows', 'old'))}
      ELSE
        ${record(
          `${entriesOf(capture, changedRows(capture, 'old'), 'old')} UNION ALL ${entriesOf(capture, changedRows(capture, 'new'), 'new')}`,
        )}
      END IF;
      RETURN NULL;
    END $$`;
}

function captureTriggers(capture: Capture): string[] {
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

/**
 * Records entries: later entries of the arrays win for the same record; entries of enterprises
 * that do not exist (or are being deleted) are dropped, as their log rows go with the enterprise.
 * Exported for the migration that replaces it to restore it on the way down.
 */
export const RECORD_FUNCTION = `
  CREATE OR REPLACE FUNCTION change_log_record(enterprise_ids uuid[], record_types text[], record_ids uuid[], actions text[])
  RETURNS void LANGUAGE sql AS $$
    INSERT INTO change_log AS c (enterprise_id, record_type, record_id, action)
    SELECT DISTINCT ON (e.enterprise_id, e.record_type, e.record_id) e.enterprise_id, e.record_type, e.record_id, e.action
      FROM unnest(enterprise_ids, record_types, record_ids, actions) WITH ORDINALITY
           AS e(enterprise_id, record_type, record_id, action, n)
     WHERE e.enterprise_id IS NOT NULL AND e.record_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM enterprises x WHERE x.id = e.enterprise_id)
     ORDER BY e.enterprise_id, e.record_type, e.record_id, e.n DESC
    ON CONFLICT (enterprise_id, record_type, record_id) DO UPDATE
       SET action = EXCLUDED.action, changed_xid = EXCLUDED.changed_xid, seq = EXCLUDED.seq,
           changed_at = EXCLUDED.changed_at
  $$`;

/** Every existing record, so a feed read from the beginning lists the whole enterprise. */
const BACKFILL = `
  INSERT INTO change_log (enterprise_id, record_type, record_id, action, changed_at)
  SELECT enterprise_id, record_type, record_id, 'upserted', changed_at FROM (
    SELECT enterprise_id, 'person' AS record_type, id AS record_id, updated_at AS changed_at, created_at FROM people
    UNION ALL SELECT enterprise_id, 'organisation', id, updated_at, created_at FROM organisations
    UNION ALL SELECT enterprise_id, 'application', id, updated_at, created_at FROM applications
    UNION ALL SELECT enterprise_id, 'quote', id, updated_at, created_at FROM quotes
    UNION ALL SELECT enterprise_id, 'lead', id, updated_at, created_at FROM leads
    UNION ALL SELECT m.enterprise_id, 'user', u.id, greatest(u.updated_at, m.created_at), m.created_at
      FROM memberships m JOIN users u ON u.id = m.user_id
  ) existing
  WHERE enterprise_id IS NOT NULL
  ORDER BY created_at, record_id`;

export class ChangeLog1764100000000 implements MigrationInterface {
  name = 'ChangeLog1764100000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SEQUENCE change_log_seq`);
    await q.query(`
      CREATE TABLE change_log (
        enterprise_id uuid NOT NULL,
        record_type text NOT NULL
          CHECK (record_type IN ('person', 'organisation', 'application', 'quote', 'lead', 'user')),
        record_id uuid NOT NULL,
        action text NOT NULL CHECK (action IN ('upserted', 'removed')),
        changed_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        seq bigint NOT NULL DEFAULT nextval('change_log_seq'),
        changed_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (enterprise_id, record_type, record_id)
      )`);
    await q.query(`ALTER SEQUENCE change_log_seq OWNED BY change_log.seq`);
    await q.query(`CREATE INDEX change_log_position_idx ON change_log (enterprise_id, changed_xid, seq)`);
    // No foreign key to enterprises: its check locks the enterprise row (FOR KEY SHARE) in every
    // writing transaction, which measurably slowed concurrent writes of one enterprise. The log
    // rows of a deleted enterprise go with it here instead.
    await q.query(`
      CREATE FUNCTION change_log_forget_enterprises() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM change_log WHERE enterprise_id IN (SELECT id FROM old_rows);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER enterprises_forget_changes AFTER DELETE ON enterprises
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION change_log_forget_enterprises()`);
    await q.query(RECORD_FUNCTION);
    for (const capture of CAPTURES) {
      await q.query(captureFunction(capture));
      for (const trigger of captureTriggers(capture)) await q.query(trigger);
    }
    await q.query(BACKFILL);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const capture of CAPTURES) {
      for (const op of ['insert', 'update', 'delete']) {
        await q.query(`DROP TRIGGER IF EXISTS ${capture.name}_changes_${op} ON ${capture.table}`);
      }
      await q.query(`DROP FUNCTION IF EXISTS change_log_capture_${capture.name}()`);
    }
    await q.query(`DROP FUNCTION IF EXISTS change_log_record(uuid[], text[], uuid[], text[])`);
    await q.query(`DROP TRIGGER IF EXISTS enterprises_forget_changes ON enterprises`);
    await q.query(`DROP FUNCTION IF EXISTS change_log_forget_enterprises()`);
    await q.query(`DROP TABLE IF EXISTS change_log`);
  }
}
