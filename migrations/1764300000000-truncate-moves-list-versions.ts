import type { MigrationInterface, QueryRunner } from 'typeorm';
import { COUNTED_TABLES } from './1763900000000-tenant-row-counts.js';
import { CAPTURES } from './1764100000000-change-log.js';

/** The captured tables without a row count of their own: the nested rows of a record. */
const NESTED_TABLES = [...new Set(CAPTURES.map((c) => c.table))].filter(
  (table) => !(COUNTED_TABLES as readonly string[]).includes(table),
);

/**
 * A list's version (its ETag, and the key its kept page is found under) must never repeat. A
 * TRUNCATE deleted the table's count rows, versions included, so the next insert started the
 * version again at 1; and a TRUNCATE of nested rows (phone numbers, say) moved no version at all.
 * Now a TRUNCATE of any captured table moves every list version (TRUNCATE names no enterprise;
 * it is rare enough that every list being read afresh once costs nothing that matters), and a
 * counted table's counts go to zero instead of away.
 */
export class TruncateMovesListVersions1764300000000 implements MigrationInterface {
  name = 'TruncateMovesListVersions1764300000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE OR REPLACE FUNCTION tenant_row_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE tenant_row_counts
           SET row_count = CASE WHEN table_name = TG_TABLE_NAME THEN 0 ELSE row_count END,
               version = version + 1;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION list_versions_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE tenant_row_counts SET version = version + 1;
        RETURN NULL;
      END $$`);
    for (const table of NESTED_TABLES) {
      await q.query(`
        CREATE TRIGGER ${table}_versions_truncate AFTER TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION list_versions_on_truncate()`);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of NESTED_TABLES) await q.query(`DROP TRIGGER IF EXISTS ${table}_versions_truncate ON ${table}`);
    await q.query(`DROP FUNCTION IF EXISTS list_versions_on_truncate()`);
    await q.query(`
      CREATE OR REPLACE FUNCTION tenant_row_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM tenant_row_counts WHERE table_name = TG_TABLE_NAME;
        RETURN NULL;
      END $$`);
  }
}
