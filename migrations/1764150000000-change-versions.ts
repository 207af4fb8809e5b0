import type { MigrationInterface, QueryRunner } from 'typeorm';
import { RECORD_FUNCTION } from './1764100000000-change-log.js';

/**
 * A version per enterprise and record type, bumped in the same statement as every change-log
 * write: what a list's ETag is made of. The change log's positions cannot serve for that (a
 * transaction that commits late carries an older position than one already visible, so the
 * highest position would not move); an in-place counter does, since writers take its row in turn.
 */
export class ChangeVersions1764150000000 implements MigrationInterface {
  name = 'ChangeVersions1764150000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE change_log_versions (
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        record_type text NOT NULL,
        version bigint NOT NULL,
        PRIMARY KEY (enterprise_id, record_type)
      )`);
    await q.query(`
      CREATE OR REPLACE FUNCTION change_log_record(enterprise_ids uuid[], record_types text[], record_ids uuid[], actions text[])
      RETURNS void LANGUAGE sql AS $$
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
        INSERT INTO change_log_versions AS v (enterprise_id, record_type, version)
        SELECT DISTINCT enterprise_id, record_type, 1 FROM written ORDER BY 1, 2
        ON CONFLICT (enterprise_id, record_type) DO UPDATE SET version = v.version + 1
      $$`);
    await q.query(`
      INSERT INTO change_log_versions (enterprise_id, record_type, version)
      SELECT enterprise_id, record_type, 1 FROM change_log GROUP BY enterprise_id, record_type`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(RECORD_FUNCTION);
    await q.query(`DROP TABLE IF EXISTS change_log_versions`);
  }
}
