import { ReplicaPair } from '../../bench/lib/replica-pair.js';
import { freePort } from './free-port.mjs';
import { startPgBouncer, type RunningPgBouncer } from './pgbouncer.mjs';
import { replicaToolsMissing } from './replica-tools.mjs';

export { queryOn } from '../../bench/lib/replica-pair.js';

/**
 * A real streaming-replication pair of this test file's own (bench/lib/replica-pair.ts), and a
 * real PgBouncer in front of both in transaction mode (databases `primary` and `replica`). The
 * servers' own statistics (`replicaStatementCalls`) say which one answered.
 */
export class ReplicaCluster extends ReplicaPair {
  private bouncer: RunningPgBouncer | undefined;

  static override async start(): Promise<ReplicaCluster> {
    const missing = replicaToolsMissing();
    if (missing) throw new Error(`The replica tests need ${missing}`);
    // Ports outside the kernel's range for outgoing connections, as every spawned server of the suites.
    const cluster = new ReplicaCluster(...(await ReplicaPair.places(freePort)));
    await cluster.init([]);
    try {
      cluster.bouncer = await startPgBouncer(
        {
          primary: `host=127.0.0.1 port=${cluster.primaryPort} dbname=postgres`,
          replica: `host=127.0.0.1 port=${cluster.replicaPort} dbname=postgres`,
        },
        'primary',
      );
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get bouncerPort(): number {
    return this.bouncer?.port ?? 0;
  }

  /** PgBouncer's pool of the primary, in transaction mode. */
  get bouncerPrimaryUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.bouncerPort}/primary`;
  }

  /** PgBouncer's pool of the replica, in transaction mode. */
  get bouncerReplicaUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.bouncerPort}/replica`;
  }

  override async stop(): Promise<void> {
    await this.bouncer?.stop();
    this.bouncer = undefined;
    await super.stop();
  }
}
