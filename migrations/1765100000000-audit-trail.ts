import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit trail: one row per security-relevant action in an enterprise, written in the
 * action's own transaction. Rows are never changed (a trigger refuses UPDATE); they go with
 * their enterprise, or when retention prunes them. Actors are kept as ids, not references, so a
 * user's removal leaves the record of what they did. Webhook endpoints keep who created them.
 */
export class AuditTrail1765100000000 implements MigrationInterface {
  name = 'AuditTrail1765100000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        occurred_at timestamp(3) with time zone NOT NULL DEFAULT now(),
        actor varchar(16) NOT NULL CONSTRAINT audit_events_actor_check CHECK (actor IN ('user', 'cli', 'system')),
        actor_user_id uuid,
        actor_token_id uuid,
        action varchar(64) NOT NULL,
        target_type varchar(32) NOT NULL,
        target_id varchar(255),
        details jsonb NOT NULL DEFAULT '{}',
        client_ip varchar(64),
        request_id varchar(128)
      )`);
    await q.query(`CREATE INDEX audit_events_enterprise_occurred_idx ON audit_events (enterprise_id, occurred_at, id)`);
    await q.query(`CREATE INDEX audit_events_occurred_idx ON audit_events (occurred_at)`);
    await q.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit events are never changed' USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(
      `CREATE TRIGGER audit_events_append_only BEFORE UPDATE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`,
    );
    await q.query(`ALTER TABLE webhook_endpoints ADD COLUMN created_by uuid REFERENCES users (id) ON DELETE SET NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_endpoints DROP COLUMN created_by`);
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_events_append_only()`);
  }
}
