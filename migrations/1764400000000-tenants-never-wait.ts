import type { MigrationInterface, QueryRunner } from 'typeorm';
import { COUNTED_TABLES } from './1763900000000-tenant-row-counts.js';
import { CAPTURES, changedRows, entriesOf, type Capture } from './1764100000000-change-log.js';
import { VERSIONED_RECORD_FUNCTION } from './1764150000000-change-versions.js';
import { InlineChangeCapture1764240000000 } from './1764240000000-inline-change-capture.js';
import { TruncateMovesListVersions1764300000000 } from './1764300000000-truncate-moves-list-versions.js';
import {
  CHANGE_LOG_ALL_ENTERPRISES_LOCK,
  CHANGE_LOG_ENTERPRISE_LOCK,
  COUNT_FOLD_LOCK,
  MARKED_ENTERPRISES_BEFORE_ALL,
  REFUSE_TRUNCATE_FUNCTION,
  refuseTruncateTrigger,
} from '../src/database/tenant-table-migration.js';

/**
 * Tenants never wait for each other on the write path, and the change feed waits only for the
 * transactions that can still add to it (docs/decisions: "Counts, list versions and the feed's
 * horizon without hot rows").
 *
 * 1. Row counts and list versions: every writer used to update the one tenant_row_counts row
 *    of its enterprise and table, so two writers of one enterprise's leads waited for each
 *    other until the first committed. Writers now only insert into tenant_count_deltas (a row
 *    count change, or 0 for a change that moves only the version); a background step folds
 *    committed deltas into tenant_row_counts. A reader adds the base row and the deltas it
 *    sees in one statement: total = base + sum of deltas, version = base version + number of
 *    deltas. Every committed write adds at least one delta, so the version moves with every
 *    change and never repeats; the fold moves deltas into the base in one transaction, so no
 *    snapshot sees a delta twice or not at all.
 * 2. The feed's horizon: positions are now taken from change_log_seq after the writing
 *    transaction has announced itself (change_log_register: a transaction-scoped advisory lock
 *    on its first position, then one per enterprise it writes), and a reader hands out entries
 *    only below the lowest position still held by a transaction that announced this
 *    enterprise. Entries written before this migration keep their transaction ids, all of which
 *    are below the epoch every new entry carries, so stored cursors stay valid.
 * 3. The ids of the keys cursors were written under (cursor_keys), so a cursor of a key retired
 *    later is told apart from a forged one.
 * 4. TRUNCATE of any table whose rows a record or a list shows is refused (use DELETE): a
 *    TRUNCATE names no row, so neither the feed nor a record's version could say what it changed.
 */

/** The list whose version a record type's change moves. No default: an unknown type fails loudly. */
const TABLE_OF_TYPE = `CASE record_type WHEN 'person' THEN 'people' WHEN 'organisation' THEN 'organisations'
  WHEN 'application' THEN 'applications' WHEN 'quote' THEN 'quotes' WHEN 'lead' THEN 'leads' WHEN 'user' THEN 'users' END`;

/** Tables whose TRUNCATE is refused: what records and lists show, and the bookkeeping behind them. */
export const TRUNCATE_REFUSED_TABLES = [
  'enterprises',
  ...new Set(CAPTURES.map((capture) => capture.table)),
  'change_log',
  'tenant_row_counts',
  'tenant_count_deltas',
] as const;

const NESTED_TABLES = [...new Set(CAPTURES.map((c) => c.table))].filter(
  (table) => !(COUNTED_TABLES as readonly string[]).includes(table),
);

const ENTERPRISE_EXISTS = `EXISTS (SELECT 1 FROM enterprises x WHERE x.id = e.enterprise_id)`;

/**
 * Announces the calling transaction as a writer of the change log, before its first entry of
 * each enterprise takes a position. On its first call in a transaction it takes a position from
 * change_log_seq and holds it (a shared advisory lock on that number, until the transaction
 * ends): every entry it writes comes after that position. Then it holds a shared lock per
 * enterprise written (a 32-bit hash of the id), or, past a few dozen enterprises in one
 * transaction, one lock meaning every enterprise, so a large import cannot fill the server's
 * lock table. The transaction-local setting remembers what is held; advisory locks and the
 * setting both end with the (sub)transaction that took them.
 */
const REGISTER_FUNCTION = `
  CREATE FUNCTION change_log_register(enterprise_ids uuid[]) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    marked text := coalesce(current_setting('change_log.marked', true), '');
    enterprise uuid;
    key integer;
  BEGIN
    IF marked = '*' OR cardinality(enterprise_ids) = 0 THEN RETURN true; END IF;
    IF marked = '' THEN
      PERFORM pg_advisory_xact_lock_shared(nextval('change_log_seq'));
      marked := ',';
    END IF;
    FOREACH enterprise IN ARRAY enterprise_ids LOOP
      key := hashtext(enterprise::text);
      CONTINUE WHEN position(',' || key || ',' IN marked) > 0;
      IF length(marked) - length(replace(marked, ',', '')) > ${MARKED_ENTERPRISES_BEFORE_ALL} THEN
        PERFORM pg_advisory_xact_lock_shared(${CHANGE_LOG_ALL_ENTERPRISES_LOCK}, 0);
        marked := '*';
        EXIT;
      END IF;
      PERFORM pg_advisory_xact_lock_shared(${CHANGE_LOG_ENTERPRISE_LOCK}, key);
      marked := marked || key || ',';
    END LOOP;
    PERFORM set_config('change_log.marked', marked, true);
    RETURN true;
  END $$`;

/**
 * The position below which the enterprise's log is final. It takes a fresh position first and
 * then looks at the locks: a transaction announced before the look is seen (its held position
 * bounds the horizon), one announced after takes positions after the fresh one. Call it in a
 * statement of its own before the snapshot the log is read in, so every transaction that ended
 * before the look is visible to that read.
 */
const HORIZON_FUNCTION = `
  CREATE FUNCTION change_log_horizon(enterprise uuid) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    fresh bigint := nextval('change_log_seq');
    held bigint;
  BEGIN
    WITH locks AS MATERIALIZED (
      SELECT pid, classid, objid, objsubid FROM pg_locks
       WHERE locktype = 'advisory' AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    )
    SELECT min((p.classid::bigint << 32) | p.objid::bigint) INTO held
      FROM locks m JOIN locks p ON p.pid = m.pid AND p.objsubid = 1
     WHERE m.objsubid = 2
       AND ((m.classid = ${CHANGE_LOG_ENTERPRISE_LOCK} AND m.objid = hashtext(enterprise::text)::oid)
         OR (m.classid = ${CHANGE_LOG_ALL_ENTERPRISES_LOCK} AND m.objid = 0));
    RETURN least(fresh, coalesce(held, fresh));
  END $$`;

/** Folds committed deltas into the base rows, oldest first, in batches; one folder at a time. */
const FOLD_FUNCTION = `
  CREATE FUNCTION tenant_counts_fold(batch integer) RETURNS integer LANGUAGE plpgsql AS $$
  DECLARE folded integer;
  BEGIN
    IF NOT pg_try_advisory_xact_lock(${COUNT_FOLD_LOCK}, 0) THEN RETURN 0; END IF;
    WITH gone AS (
      DELETE FROM tenant_count_deltas
       WHERE id IN (SELECT id FROM tenant_count_deltas ORDER BY id LIMIT batch)
      RETURNING enterprise_id, table_name, row_delta
    ), sums AS (
      SELECT enterprise_id, table_name, sum(row_delta) AS row_delta, count(*) AS changes
        FROM gone GROUP BY enterprise_id, table_name
    ), kept AS (
      INSERT INTO tenant_row_counts AS t (enterprise_id, table_name, row_count, version)
      SELECT s.enterprise_id, s.table_name, s.row_delta, s.changes FROM sums s
       WHERE EXISTS (SELECT 1 FROM enterprises x WHERE x.id = s.enterprise_id)
       ORDER BY s.enterprise_id, s.table_name
      ON CONFLICT (enterprise_id, table_name)
        DO UPDATE SET row_count = t.row_count + EXCLUDED.row_count, version = t.version + EXCLUDED.version
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM gone) INTO folded;
    RETURN folded;
  END $$`;

const ADD_FUNCTION = `
  CREATE OR REPLACE FUNCTION tenant_row_counts_add(target_table text, enterprise uuid, delta bigint) RETURNS void
  LANGUAGE sql AS $$
    INSERT INTO tenant_count_deltas (enterprise_id, table_name, row_delta)
    SELECT enterprise, target_table, delta WHERE enterprise IS NOT NULL
        AND EXISTS (SELECT 1 FROM enterprises WHERE id = enterprise)
  $$`;

function countFunction(name: 'on_insert' | 'on_delete', rows: string, sign: '' | '-'): string {
  return `
    CREATE OR REPLACE FUNCTION tenant_row_counts_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tenant_count_deltas (enterprise_id, table_name, row_delta)
      SELECT e.enterprise_id, TG_TABLE_NAME, ${sign}count(*) FROM ${rows} e
       WHERE e.enterprise_id IS NOT NULL AND ${ENTERPRISE_EXISTS}
       GROUP BY e.enterprise_id;
      RETURN NULL;
    END $$`;
}

const UPSERT = `ON CONFLICT (enterprise_id, record_type, record_id) DO UPDATE
       SET action = EXCLUDED.action, changed_xid = EXCLUDED.changed_xid, seq = EXCLUDED.seq,
           changed_at = EXCLUDED.changed_at`;

/**
 * Writes the entries of `source`, the new side winning over the old for one record. The
 * registration is an uncorrelated condition, evaluated once before the first entry is written
 * (and so before any entry takes its position from the sequence). `versioned`: the entries'
 * lists get a version delta each (inserts and deletes of a counted table get theirs from the
 * row-count trigger instead).
 */
function writeEntries(source: string, versioned: boolean): string {
  const insert = `INSERT INTO change_log AS c (enterprise_id, record_type, record_id, action)
        SELECT DISTINCT ON (e.enterprise_id, e.record_type, e.record_id) e.enterprise_id, e.record_type, e.record_id, e.action
          FROM entries e
         WHERE (SELECT change_log_register(ARRAY(SELECT DISTINCT enterprise_id FROM entries)))
         ORDER BY e.enterprise_id, e.record_type, e.record_id, e.side DESC
        ${UPSERT}`;
  const entries = `entries AS MATERIALIZED (
        SELECT e.* FROM (${source}) e WHERE e.enterprise_id IS NOT NULL AND e.record_id IS NOT NULL AND ${ENTERPRISE_EXISTS}
      )`;
  if (!versioned) return `WITH ${entries} ${insert};`;
  return `WITH ${entries}, written AS (${insert} RETURNING c.enterprise_id, c.record_type)
      INSERT INTO tenant_count_deltas (enterprise_id, table_name, row_delta)
      SELECT DISTINCT enterprise_id, ${TABLE_OF_TYPE}, 0 FROM written;`;
}

function captureFunction(capture: Capture): string {
  const ownCounted = (COUNTED_TABLES as readonly string[]).includes(capture.name);
  const changed = `${entriesOf(capture, changedRows(capture, 'old'), 'old')} UNION ALL ${entriesOf(capture, changedRows(capture, 'new'), 'new')}`;
  return `
    CREATE OR REPLACE FUNCTION change_log_capture_${capture.name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${writeEntries(entriesOf(capture, 'new_rows', 'new'), !ownCounted)}
      ELSIF TG_OP = 'DELETE' THEN
        ${writeEntries(entriesOf(capture, 'old_rows', 'old'), !ownCounted)}
      ELSE
        ${writeEntries(changed, true)}
      END IF;
      RETURN NULL;
    END $$`;
}

/**
 * Every existing table this migration alters, in the order the serving release's statements and
 * transactions take them: the records' tables, users before memberships (the token look-up joins
 * them in that order, and a user's capture reads memberships), enterprises before memberships
 * (the enterprise list), then the bookkeeping the records' triggers write (counts, change log).
 * LOCK TABLE takes them one after the other, holding those it has: a request that held a later
 * one while it waited for an earlier one would wait on the migration while it waits on the request.
 */
const RECORD_TABLES = [...new Set([...COUNTED_TABLES, ...NESTED_TABLES, ...CAPTURES.map((capture) => capture.table)])];
const LOCK_ORDER = [
  ...RECORD_TABLES.filter((table) => table !== 'users' && table !== 'memberships'),
  'users',
  'enterprises',
  'memberships',
  'tenant_row_counts',
  'change_log',
];

export class TenantsNeverWait1764400000000 implements MigrationInterface {
  name = 'TenantsNeverWait1764400000000';

  public async up(q: QueryRunner): Promise<void> {
    // All the locks first, in the requests' order: taken statement by statement after the change
    // log's, each waited for requests that held a record's table and were waiting for the change
    // log, until the migration gave way; under load an upgrade gave way ten times here.
    await q.query(`LOCK TABLE ${LOCK_ORDER.join(', ')} IN ACCESS EXCLUSIVE MODE`);
    await q.query(`
      CREATE TABLE tenant_count_deltas (
        id bigserial PRIMARY KEY,
        enterprise_id uuid NOT NULL,
        table_name text NOT NULL,
        row_delta bigint NOT NULL
      )`);
    await q.query(`CREATE INDEX tenant_count_deltas_list_idx ON tenant_count_deltas (enterprise_id, table_name)`);
    await q.query(ADD_FUNCTION);
    await q.query(countFunction('on_insert', 'new_rows', ''));
    await q.query(countFunction('on_delete', 'old_rows', '-'));
    await q.query(FOLD_FUNCTION);

    // Every entry written from now on sorts after every entry written before: the epoch is above
    // every transaction id handed out so far (no writer of the log is under way: this migration
    // has held the change log since its first statement).
    const [{ epoch }] = (await q.query(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS epoch`)) as [
      { epoch: string },
    ];
    await q.query(
      `CREATE FUNCTION change_log_epoch() RETURNS xid8 LANGUAGE sql IMMUTABLE AS $$ SELECT '${epoch}'::xid8 $$`,
    );
    await q.query(`ALTER TABLE change_log ALTER COLUMN changed_xid SET DEFAULT change_log_epoch()`);
    await q.query(REGISTER_FUNCTION);
    await q.query(HORIZON_FUNCTION);
    for (const capture of CAPTURES) await q.query(captureFunction(capture));

    for (const table of COUNTED_TABLES) await q.query(`DROP TRIGGER IF EXISTS ${table}_count_truncate ON ${table}`);
    for (const table of NESTED_TABLES) await q.query(`DROP TRIGGER IF EXISTS ${table}_versions_truncate ON ${table}`);
    await q.query(`DROP FUNCTION IF EXISTS list_versions_on_truncate()`);
    await q.query(REFUSE_TRUNCATE_FUNCTION);
    for (const table of TRUNCATE_REFUSED_TABLES) await q.query(refuseTruncateTrigger(table));
    await q.query(`
      CREATE TABLE cursor_keys (
        key_id text PRIMARY KEY,
        first_used_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE cursor_keys`);
    for (const table of TRUNCATE_REFUSED_TABLES)
      await q.query(`DROP TRIGGER IF EXISTS ${table}_refuse_truncate ON ${table}`);
    await q.query(`DROP FUNCTION IF EXISTS refuse_truncate()`);
    for (const table of COUNTED_TABLES) {
      await q.query(`
        CREATE TRIGGER ${table}_count_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION tenant_row_counts_on_truncate()`);
    }
    await new TruncateMovesListVersions1764300000000().up(q);
    // The inline capture migration drops the array-taking recorder it replaced; give it one to drop.
    await q.query(VERSIONED_RECORD_FUNCTION);
    await new InlineChangeCapture1764240000000().up(q);
    await q.query(`DROP FUNCTION change_log_register(uuid[])`);
    await q.query(`DROP FUNCTION change_log_horizon(uuid)`);
    await q.query(`ALTER TABLE change_log ALTER COLUMN changed_xid SET DEFAULT pg_current_xact_id()`);
    await q.query(`DROP FUNCTION change_log_epoch()`);
    while (Number(((await q.query(`SELECT tenant_counts_fold(10000) AS n`)) as [{ n: number }])[0].n) > 0);
    await q.query(`DROP FUNCTION tenant_counts_fold(integer)`);
    await q.query(`DROP TABLE tenant_count_deltas`);
  }
}
