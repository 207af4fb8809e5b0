import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { queryOn, ReplicaCluster } from '../helpers/replica-cluster.js';

/**
 * Whether the change feed could be served by a hot standby: it cannot, and this is the proof the
 * decision rests on. The feed's horizon (change_log_horizon) looks at the advisory locks writers
 * hold on the server; a standby does not see the primary's advisory locks, and it cannot even
 * take the fresh position the horizon starts from (a sequence's nextval is a write).
 */
describe('the change feed on a hot standby', () => {
  let cluster: ReplicaCluster;

  beforeAll(async () => {
    cluster = await ReplicaCluster.start();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('cannot compute the horizon: a standby refuses the sequence step it starts with', async () => {
    const [enterprise] = await queryOn<{ id: string }>(cluster.primaryUrl, 'SELECT gen_random_uuid()::text AS id');
    await expect(
      queryOn(cluster.replicaUrl, 'SELECT change_log_horizon($1)::text AS seq', [enterprise?.id]),
    ).rejects.toThrow(/read-only transaction|recovery/);
  });

  it("does not show the primary's writers: their advisory locks are not in the standby's pg_locks", async () => {
    const writer = new pg.Client(cluster.primaryUrl);
    await writer.connect();
    try {
      await writer.query('BEGIN');
      // What change_log_register takes for a writer announcing itself (transaction-scoped).
      await writer.query('SELECT pg_advisory_xact_lock_shared(4242, 4242)');
      // A row change too, so the transaction is in the WAL the standby replays.
      await writer.query(`CREATE TEMP TABLE announce (x int)`);
      const onPrimary = await queryOn<{ n: string }>(
        cluster.primaryUrl,
        `SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = 4242 AND objid = 4242`,
      );
      expect(onPrimary[0]?.n).toBe('1');
      await cluster.waitForReplay();
      const onStandby = await queryOn<{ n: string }>(
        cluster.replicaUrl,
        `SELECT count(*)::text AS n FROM pg_locks WHERE locktype = 'advisory'`,
      );
      expect(onStandby[0]?.n).toBe('0');
    } finally {
      await writer.query('ROLLBACK');
      await writer.end();
    }
  });
});
