import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Outbound webhooks (issue 31). The change log is the durable queue; these tables add only what
 * delivering from it needs:
 * - webhook_endpoints: an enterprise's receiver (url, types, secret encrypted with APP_KEY, the
 *   previous secret during a rotation's overlap), where its stream stands in the change log
 *   (cursor_xid, cursor_seq: a feed position), its retry state, and its lease: the process
 *   delivering it writes its name and an expiry here with one UPDATE, so each endpoint is
 *   delivered by one process at a time and a killed process's lease simply runs out;
 * - webhook_deliveries: the attempts, kept 7 days, answered by the deliveries route.
 */
export class WebhookEndpoints1764500000000 implements MigrationInterface {
  name = 'WebhookEndpoints1764500000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        enterprise_id uuid NOT NULL REFERENCES enterprises (id) ON DELETE CASCADE,
        url varchar(2048) NOT NULL,
        types text[] NOT NULL,
        description varchar(1000) NULL,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason varchar(255) NULL,
        secret_encrypted text NOT NULL,
        previous_secret_encrypted text NULL,
        previous_secret_expires_at timestamptz(3) NULL,
        cursor_xid bigint NOT NULL,
        cursor_seq bigint NOT NULL DEFAULT 0,
        generation integer NOT NULL DEFAULT 0,
        failures integer NOT NULL DEFAULT 0,
        failing_since timestamptz(3) NULL,
        next_attempt_at timestamptz(3) NULL,
        lease_owner varchar(255) NULL,
        lease_expires_at timestamptz(3) NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX webhook_endpoints_enterprise_created_idx ON webhook_endpoints (enterprise_id, created_at, id)`,
    );
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
        webhook_id varchar(64) NOT NULL,
        event_type varchar(64) NOT NULL,
        attempt integer NOT NULL,
        status_code integer NULL,
        error varchar(255) NULL,
        response_body text NULL,
        duration_ms integer NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_endpoint_newest_idx ON webhook_deliveries (endpoint_id, created_at)`,
    );
    // The purge deletes by age.
    await q.query(`CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS webhook_deliveries`);
    await q.query(`DROP TABLE IF EXISTS webhook_endpoints`);
  }
}
