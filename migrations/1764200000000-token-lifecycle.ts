import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens get a lifecycle (issue 16): a kind (`login` from the API, `integration` from the
 * CLI), an operator's name for integration tokens, an optional fixed expiry, and when the token
 * was last used (written at most once a minute). Existing tokens are login tokens.
 */
export class TokenLifecycle1764200000000 implements MigrationInterface {
  name = 'TokenLifecycle1764200000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE access_tokens
        ADD COLUMN kind varchar(16) NOT NULL DEFAULT 'login' CHECK (kind IN ('login', 'integration')),
        ADD COLUMN name varchar(255) NULL,
        ADD COLUMN last_used_at timestamptz(3) NULL,
        ADD COLUMN expires_at timestamptz(3) NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE access_tokens
        DROP COLUMN expires_at,
        DROP COLUMN last_used_at,
        DROP COLUMN name,
        DROP COLUMN kind`);
  }
}
