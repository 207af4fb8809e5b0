import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Least privilege. A membership has a role: `admin` (manages the enterprise's webhook
 * endpoints) or `member` (reads and writes records). Every membership there is becomes `admin`,
 * so nobody loses what they could do; the column's default stays `admin` for the importer, whose
 * files say nothing of roles. A token may carry abilities and be bound to enterprises; null in
 * either is today's full access (every login token, every token issued before).
 * Adding a column with a constant default rewrites nothing (PostgreSQL keeps the default).
 */
export class RolesAndTokenScopes1765000000000 implements MigrationInterface {
  name = 'RolesAndTokenScopes1765000000000';

  public async up(q: QueryRunner): Promise<void> {
    // Both locks first, in the order a request's token look-up reads the tables: altering
    // memberships first and then waiting for access_tokens formed a cycle with a look-up that
    // held access_tokens and waited for memberships, and the migration gave way again and again.
    await q.query(`LOCK TABLE access_tokens, memberships IN ACCESS EXCLUSIVE MODE`);
    await q.query(`ALTER TABLE memberships ADD COLUMN role varchar(16) NOT NULL DEFAULT 'admin'`);
    await q.query(`ALTER TABLE memberships ADD CONSTRAINT memberships_role_check CHECK (role IN ('admin', 'member'))`);
    await q.query(`ALTER TABLE access_tokens ADD COLUMN abilities text[], ADD COLUMN enterprise_ids uuid[]`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE access_tokens DROP COLUMN abilities, DROP COLUMN enterprise_ids`);
    await q.query(`ALTER TABLE memberships DROP COLUMN role`);
  }
}
