import type { MigrationInterface, QueryRunner } from 'typeorm';
import { ROW_COUNT_FUNCTIONS } from './1763900000000-tenant-row-counts.js';
import { CAPTURES, captureFunction, changedRows, entriesOf, type Capture } from './1764100000000-change-log.js';
import { TABLE_OF_TYPE, VERSIONED_RECORD_FUNCTION } from './1764150000000-change-versions.js';

/**
 * The change feed's capture, same entries, less work per statement: a single-row lead create
 * paid about 40% of its database time for it. Each trigger function now writes the change log
 * itself (no arrays built, no function called, no unnest), and an insert or delete of a counted
 * record no longer takes the row-count row a second time for its version: the row-count trigger,
 * which updates that row anyway, moves the version in the same UPDATE. Updates and nested rows
 * still bump the version from the capture, since no row count changes for them.
 */

/** Captures of a counted table's own records: their inserts and deletes are versioned by the row counts. */
const VERSIONED_BY_ROW_COUNTS = new Set(['people', 'organisations', 'applications', 'quotes', 'leads']);

const LOGGABLE = `e.enterprise_id IS NOT NULL AND e.record_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM enterprises x WHERE x.id = e.enterprise_id)`;

const UPSERT = `ON CONFLICT (enterprise_id, record_type, record_id) DO UPDATE
       SET action = EXCLUDED.action, changed_xid = EXCLUDED.changed_xid, seq = EXCLUDED.seq,
           changed_at = EXCLUDED.changed_at`;

/** Entries naming each record once (one side of a table's own rows): written as they are. */
function logOnly(source: string): string {
  return `INSERT INTO change_log AS c (enterprise_id, record_type, record_id, action)
      SELECT e.enterprise_id, e.record_type, e.record_id, e.action FROM (${source}) e
       WHERE ${LOGGABLE}
      ${UPSERT};`;
}

/**
 * Entries that may name a record more than once (two phones of one person, both sides of an
 * update): the new side wins over the old, and each type's version moves once.
 */
function logAndVersion(source: string): string {
  return `WITH written AS (
        INSERT INTO change_log AS c (enterprise_id, record_type, record_id, action)
        SELECT DISTINCT ON (e.enterprise_id, e.record_type, e.record_id) e.enterprise_id, e.record_type, e.record_id, e.action
          FROM (${source}) e
         WHERE ${LOGGABLE}
         ORDER BY e.enterprise_id, e.record_type, e.record_id, e.side DESC
        ${UPSERT}
        RETURNING c.enterprise_id, c.record_type
      )
      INSERT INTO tenant_row_counts AS v (enterprise_id, table_name, row_count, version)
      SELECT DISTINCT enterprise_id, ${TABLE_OF_TYPE}, 0, 1 FROM written ORDER BY 1, 2
      ON CONFLICT (enterprise_id, table_name) DO UPDATE SET version = v.version + 1;`;
}

function inlineCaptureFunction(capture: Capture): string {
  const insertOrDelete = VERSIONED_BY_ROW_COUNTS.has(capture.name) ? logOnly : logAndVersion;
  const changed = `${entriesOf(capture, changedRows(capture, 'old'), 'old')} UNION ALL ${entriesOf(capture, changedRows(capture, 'new'), 'new')}`;
  return `
    CREATE OR REPLACE FUNCTION change_log_capture_${capture.name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${insertOrDelete(entriesOf(capture, 'new_rows', 'new'))}
      ELSIF TG_OP = 'DELETE' THEN
        ${insertOrDelete(entriesOf(capture, 'old_rows', 'old'))}
      ELSE
        ${logAndVersion(changed)}
      END IF;
      RETURN NULL;
    END $$`;
}

/** Adds a row count and moves the version in the same UPDATE of the counter row. */
const COUNT_AND_VERSION = `ON CONFLICT (enterprise_id, table_name)
      DO UPDATE SET row_count = c.row_count + EXCLUDED.row_count, version = c.version + 1`;

/** Counting a statement's rows moves the version of the enterprise's records of that table too. */
function countFunction(name: 'on_insert' | 'on_delete', rows: string, sign: '' | '-'): string {
  return `
    CREATE OR REPLACE FUNCTION tenant_row_counts_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO tenant_row_counts AS c (enterprise_id, table_name, row_count, version)
      SELECT r.enterprise_id, TG_TABLE_NAME, ${sign}count(*), 1 FROM ${rows} r
       WHERE r.enterprise_id IS NOT NULL AND EXISTS (SELECT 1 FROM enterprises x WHERE x.id = r.enterprise_id)
       GROUP BY r.enterprise_id ORDER BY r.enterprise_id
      ${COUNT_AND_VERSION};
      RETURN NULL;
    END $$`;
}

const VERSIONED_ADD = `
  CREATE OR REPLACE FUNCTION tenant_row_counts_add(target_table text, enterprise uuid, delta bigint) RETURNS void
  LANGUAGE sql AS $$
    INSERT INTO tenant_row_counts AS c (enterprise_id, table_name, row_count, version)
    SELECT enterprise, target_table, delta, 1 WHERE enterprise IS NOT NULL
        AND EXISTS (SELECT 1 FROM enterprises WHERE id = enterprise)
    ${COUNT_AND_VERSION}
  $$`;

export class InlineChangeCapture1764240000000 implements MigrationInterface {
  name = 'InlineChangeCapture1764240000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(VERSIONED_ADD);
    await q.query(countFunction('on_insert', 'new_rows', ''));
    await q.query(countFunction('on_delete', 'old_rows', '-'));
    for (const capture of CAPTURES) await q.query(inlineCaptureFunction(capture));
    await q.query(`DROP FUNCTION change_log_record(uuid[], text[], uuid[], text[])`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(VERSIONED_RECORD_FUNCTION);
    for (const capture of CAPTURES) await q.query(captureFunction(capture));
    for (const fn of ROW_COUNT_FUNCTIONS) await q.query(fn);
  }
}
