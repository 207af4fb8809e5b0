import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Remembered answers of lead writes sent with an `Idempotency-Key` (issue 16), per user and
 * enterprise, kept 24 hours. Only the SHA-256 of the request is kept (method, path and
 * normalised body), never the body itself. The row is claimed and filled in the transaction
 * of the write, so a request is remembered exactly when its write committed.
 */
export class IdempotencyKeys1764200000001 implements MigrationInterface {
  name = 'IdempotencyKeys1764200000001';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        key varchar(255) NOT NULL,
        request_sha256 char(64) NOT NULL,
        response_body json NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, enterprise_id, key)
      )`);
    // The purge deletes by age.
    await q.query(`CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS idempotency_keys`);
  }
}
