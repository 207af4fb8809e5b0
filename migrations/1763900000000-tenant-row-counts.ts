import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createRowCountTriggers, dropRowCountTriggers } from '../src/database/tenant-table-migration.js';

export const COUNTED_TABLES = ['people', 'organisations', 'applications', 'quotes', 'leads'] as const;

/**
 * The counting functions as first written; exported for the migration that replaces them to
 * restore them on the way down.
 */
export const ROW_COUNT_FUNCTIONS = [
  `CREATE OR REPLACE FUNCTION tenant_row_counts_add(target_table text, enterprise uuid, delta bigint) RETURNS void
      LANGUAGE sql AS $$
        INSERT INTO tenant_row_counts AS c (enterprise_id, table_name, row_count)
        SELECT enterprise, target_table, delta WHERE enterprise IS NOT NULL
            AND EXISTS (SELECT 1 FROM enterprises WHERE id = enterprise)
        ON CONFLICT (enterprise_id, table_name) DO UPDATE SET row_count = c.row_count + EXCLUDED.row_count
      $$`,
  `CREATE OR REPLACE FUNCTION tenant_row_counts_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM tenant_row_counts_add(TG_TABLE_NAME, enterprise_id, count(*))
           FROM new_rows GROUP BY enterprise_id;
        RETURN NULL;
      END $$`,
  `CREATE OR REPLACE FUNCTION tenant_row_counts_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM tenant_row_counts_add(TG_TABLE_NAME, enterprise_id, -count(*))
           FROM old_rows GROUP BY enterprise_id;
        RETURN NULL;
      END $$`,
] as const;

/**
 * Exact per-enterprise row counts kept by triggers, so a list page's `meta.total` (R7) is one
 * primary-key read instead of counting up to 100,000 index entries on every request (issue 9).
 * Inserts and deletes are counted per statement through transition tables (one counter update
 * per statement, however many rows an import writes); an update that moves a row to another
 * enterprise is counted per row, and only then (WHEN clause).
 */
export class TenantRowCounts1763900000000 implements MigrationInterface {
  name = 'TenantRowCounts1763900000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenant_row_counts (
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        table_name text NOT NULL,
        row_count bigint NOT NULL,
        PRIMARY KEY (enterprise_id, table_name)
      )`);
    for (const fn of ROW_COUNT_FUNCTIONS) await q.query(fn);
    await q.query(`
      CREATE FUNCTION tenant_row_counts_on_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM tenant_row_counts_add(TG_TABLE_NAME, OLD.enterprise_id, -1);
        PERFORM tenant_row_counts_add(TG_TABLE_NAME, NEW.enterprise_id, 1);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION tenant_row_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM tenant_row_counts WHERE table_name = TG_TABLE_NAME;
        RETURN NULL;
      END $$`);
    for (const table of COUNTED_TABLES) await createRowCountTriggers(q, table);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of COUNTED_TABLES) await dropRowCountTriggers(q, table);
    for (const fn of ['on_insert()', 'on_delete()', 'on_move()', 'on_truncate()', 'add(text, uuid, bigint)']) {
      await q.query(`DROP FUNCTION IF EXISTS tenant_row_counts_${fn}`);
    }
    await q.query(`DROP TABLE IF EXISTS tenant_row_counts`);
  }
}
