import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECORD_FUNCTION } from './1764100000000-change-log.js';

/** The table whose row-count row carries a record type's version (users: a row of its own). */
export const TABLE_OF_TYPE = `CASE record_type WHEN 'person' THEN 'people' WHEN 'organisation' THEN 'organisations'
  WHEN 'application' THEN 'applications' WHEN 'quote' THEN 'quotes' WHEN 'lead' THEN 'leads' ELSE 'users' END`;

/** change_log_record as this migration leaves it; exported for the one that replaces it. */
export const VERSIONED_RECORD_FUNCTION = `
      CREATE OR REPLACE FUNCTION change_log_record(enterprise_ids uuid[], record_types text[], record_ids uuid[], actions text[])
      RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        WITH written AS (
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
          RETURNING c.enterprise_id, c.record_type
        )
        INSERT INTO tenant_row_counts AS v (enterprise_id, table_name, row_count, version)
        SELECT DISTINCT enterprise_id, ${TABLE_OF_TYPE}, 0, 1 FROM written ORDER BY 1, 2
        ON CONFLICT (enterprise_id, table_name) DO UPDATE SET version = v.version + 1;
      END $$`;

/**
 * A version per enterprise and record type, bumped in the same statement as every change-log
 * write: what a list's ETag is made of. The change log's positions cannot serve for that (a
 * transaction that commits late carries an older position than one already visible, so the
 * highest position would not move); an in-place counter does, since writers take its row in
 * turn. It lives on the row-count row of the type's table, which inserts and deletes lock
 * anyway: one row locked per write instead of two. PL/pgSQL rather than SQL: it keeps the
 * statement's plan for the session, where a SQL function with a CTE is planned on every call.
 */
export class ChangeVersions1764150000000 implements MigrationInterface {
  name = 'ChangeVersions1764150000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenant_row_counts ADD COLUMN version bigint NOT NULL DEFAULT 0`);
    await q.query(VERSIONED_RECORD_FUNCTION);
    await q.query(`
      UPDATE tenant_row_counts c SET version = 1
       WHERE EXISTS (SELECT 1 FROM change_log l WHERE l.enterprise_id = c.enterprise_id AND ${TABLE_OF_TYPE.replaceAll('record_type', 'l.record_type')} = c.table_name)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(RECORD_FUNCTION);
    await q.query(`ALTER TABLE tenant_row_counts DROP COLUMN version`);
  }
}
