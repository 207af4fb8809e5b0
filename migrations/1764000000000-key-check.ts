import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One value encrypted with the key the data is written with (issue 13): every start and every
 * CLI command decrypts it first, so a wrong APP_KEY stops the process at once instead of
 * serving a healthy-looking service whose every person read fails.
 */
export class KeyCheck1764000000000 implements MigrationInterface {
  name = 'KeyCheck1764000000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE key_check (
        id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
        value_encrypted text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE key_check`);
  }
}
