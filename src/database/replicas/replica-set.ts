import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { connectionLimits } from '../data-source-options.js';
import { PoolReader, queryPool } from '../pool-reader.js';
import { parseLsn, type Lsn } from './lsn.js';
import { PrimaryPositions } from './replica-lag.js';

/** A probe that takes longer than this counts as the replica being unreachable. */
const PROBE_TIMEOUT_MS = 1_000;
const FAULT_LOG_INTERVAL_MS = 30_000;
/** A standby without a WAL receiver for this long has fallen off rather than reconnecting. */
const FALLEN_OFF_AFTER_MS = 10_000;

/** What /health/ready and the metrics say of one replica. */
export interface ReplicaStatus {
  /** host:port/database, never credentials. */
  readonly name: string;
  readonly reachable: boolean;
  /** Milliseconds behind the primary at the last probe; undefined while unknown. */
  readonly lagMs: number | undefined;
  /** Whether reads go to it now (reachable, a standby, within the lag bound). */
  readonly serving: boolean;
  /**
   * Whether its WAL receiver is connected to the primary (seen at two probes in a row). A
   * reachable standby that is not receiving has fallen off: it answers from an ever older state.
   */
  readonly receiving: boolean;
  /** Reads of requests it served since the process started. */
  readonly reads: number;
}

/** One streaming replica: its pool and what the last probe found. */
export class Replica {
  reachable = false;
  standby = false;
  /** Its replay position at the last look (probe, or a read that needed a newer one). */
  replayed: Lsn = 0n;
  lagMs: number | undefined;
  reads = 0;
  /** The WAL receiver was there at this probe and the one before (a receiver that keeps failing lives for milliseconds). */
  receiving = false;
  private receiverSeen = false;
  /** Since when a reachable standby has had no WAL receiver; undefined while it has one. */
  notReceivingSince: number | undefined;
  private lastFaultLog = 0;

  constructor(
    readonly name: string,
    readonly pool: pg.Pool,
  ) {}

  /** Reads its replay position now (a read that needs a newer position than the last probe's). */
  async readReplayed(): Promise<Lsn> {
    const result = await withTimeout(
      this.pool.query<{ lsn: string | null; standby: boolean }>(
        'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS standby',
      ),
    );
    return this.noteReplay(result.rows[0]);
  }

  /** The probe: its replay position, and whether its WAL receiver runs. */
  async probe(): Promise<Lsn> {
    const result = await withTimeout(
      this.pool.query<{ lsn: string | null; standby: boolean; receiver: boolean }>(
        // Any role sees whether the receiver runs (its pid); its details need pg_read_all_stats.
        'SELECT pg_last_wal_replay_lsn()::text AS lsn, pg_is_in_recovery() AS standby, ' +
          'EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AS receiver',
      ),
    );
    const row = result.rows[0];
    const replayed = this.noteReplay(row);
    this.noteReceiver(row?.receiver === true, Date.now());
    return replayed;
  }

  private noteReplay(row: { lsn: string | null; standby: boolean } | undefined): Lsn {
    this.standby = row?.standby === true;
    if (row?.lsn) this.replayed = parseLsn(row.lsn);
    return this.replayed;
  }

  /** Unreachable: nothing is known of its receiver until it answers again. */
  lostFromView(): void {
    this.receiving = false;
    this.receiverSeen = false;
    this.notReceivingSince = undefined;
  }

  private noteReceiver(seen: boolean, now: number): void {
    this.receiving = seen && this.receiverSeen;
    this.receiverSeen = seen;
    if (this.receiving || !this.standby) this.notReceivingSince = undefined;
    else this.notReceivingSince ??= now;
  }

  shouldLogFault(now: number): boolean {
    if (now - this.lastFaultLog < FAULT_LOG_INTERVAL_MS) return false;
    this.lastFaultLog = now;
    return true;
  }
}

/** A replica's name for reports: host, port and database of its URL, without user or password. */
export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/**
 * The streaming replicas of DATABASE_REPLICA_URLS: a pool each, probed every `probeMs` for
 * whether it answers and how far behind the primary it is. A replica that does not answer, is
 * not a standby (promoted), or is more than DATABASE_REPLICA_MAX_LAG_MS behind serves no reads
 * until a probe finds it well again.
 */
@Injectable()
export class ReplicaSet implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Replicas');
  readonly replicas: readonly Replica[];
  private readonly primary = new PrimaryPositions(60_000);
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  readonly maxLagMs: number;
  readonly probeMs: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly primaryReader: PoolReader,
  ) {
    this.maxLagMs = config.databaseReplicaMaxLagMs;
    this.probeMs = Math.max(20, Math.min(250, Math.floor(config.databaseReplicaMaxLagMs / 4)));
    this.replicas = config.databaseReplicaUrls.map(
      (url) =>
        new Replica(
          replicaName(url),
          new pg.Pool({
            connectionString: url,
            max: config.databasePoolMax,
            application_name: 'finance-intake',
            ...connectionLimits('service', config.databaseLockTimeoutMs),
          }),
        ),
    );
    for (const replica of this.replicas) {
      // An idle client whose server went away: noticed here, not thrown at the process.
      replica.pool.on('error', () => undefined);
    }
  }

  get configured(): boolean {
    return this.replicas.length > 0;
  }

  /** Replicas that may serve a read now. */
  serving(): Replica[] {
    return this.replicas.filter((replica) => this.isServing(replica));
  }

  isServing(replica: Replica): boolean {
    return replica.reachable && replica.standby && replica.lagMs !== undefined && replica.lagMs <= this.maxLagMs;
  }

  /** A statement on a replica: named like the primary's when statements are prepared. */
  query(replica: Replica, sql: string, parameters: unknown[]): Promise<Record<string, unknown>[]> {
    return queryPool(replica.pool, sql, parameters, this.primaryReader.preparesStatements, this.primaryReader.logger);
  }

  /** A replica whose statement failed for the server's sake is skipped until a probe finds it well. */
  markUnreachable(replica: Replica, error: unknown): void {
    replica.reachable = false;
    replica.lostFromView();
    this.logFault(replica, error);
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((replica) => ({
      name: replica.name,
      reachable: replica.reachable,
      lagMs: replica.lagMs,
      serving: this.isServing(replica),
      receiving: replica.receiving,
      reads: replica.reads,
    }));
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.configured) return;
    await this.probe();
    this.timer = setInterval(() => {
      this.probing ??= this.probe().finally(() => (this.probing = undefined));
    }, this.probeMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
  }

  /** The primary's position first, then each replica's: a replica is compared with a position it could have. */
  async probe(): Promise<void> {
    try {
      const [row] = await withTimeout(this.primaryReader.query('SELECT pg_current_wal_lsn()::text AS lsn', []));
      if (typeof row?.lsn === 'string') this.primary.add(Date.now(), parseLsn(row.lsn));
    } catch {
      // The primary's own faults are the health check's to report; lag stays as last measured.
    }
    await Promise.all(
      this.replicas.map(async (replica) => {
        try {
          const replayed = await replica.probe();
          if (!replica.reachable)
            this.logger.log(`replica ${replica.name} answers again; it serves reads once caught up`);
          replica.reachable = true;
          replica.lagMs = this.primary.lagMs(replayed, Date.now());
          this.reportFallenOff(replica);
        } catch (error) {
          this.markUnreachable(replica, error);
        }
      }),
    );
  }

  /** A standby that answers but has received no WAL for a while is told, once per fault interval. */
  private reportFallenOff(replica: Replica): void {
    const since = replica.notReceivingSince;
    const now = Date.now();
    if (since === undefined || now - since < FALLEN_OFF_AFTER_MS || !replica.shouldLogFault(now)) return;
    this.logger.warn(
      `replica ${replica.name} answers but has received no WAL from the primary for ${Math.round((now - since) / 1000)} s; ` +
        'reads go to the primary while it is behind (see the scaling guide: a replica that fell off is cloned again)',
    );
  }

  private logFault(replica: Replica, error: unknown): void {
    if (!replica.shouldLogFault(Date.now())) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(`replica ${replica.name} is skipped (${reason}); reads go to the primary until it is back`);
  }
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
