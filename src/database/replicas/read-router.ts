import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { sqlStateOf } from '../sql-state.js';
import { REDIS_CONNECTOR, type RedisConnector } from '../../config/redis-connector.js';
import { PoolReader } from '../pool-reader.js';
import type { SqlExecutor } from '../sql.js';
import { parseLsn, UNKNOWN_POSITION, type Lsn } from './lsn.js';
import { ReplicaSet, type Replica } from './replica-set.js';
import { MemoryWritePositions, RedisWritePositions, type ReadScope, type WritePositions } from './write-positions.js';

const FAULT_LOG_INTERVAL_MS = 30_000;

/**
 * Where a request's reads go. Without replicas: the primary's PoolReader, as before. With them:
 * a serving replica (round robin) unless the user has written in this enterprise more recently
 * than that replica has replayed (read-your-writes), else the primary. The replica's position is
 * the one its last probe read; only when the user's write is newer is it asked again. The
 * choice is made on a request's first statement and kept for all of them, so a list's version and
 * its rows come from one server; a replica that fails a statement hands it, and the rest of the
 * request, to the primary (a read is safe to run again), so a replica's fault is never a 5xx.
 */
@Injectable()
export class ReadRouter implements OnApplicationShutdown {
  private readonly logger = new Logger('Replicas');
  private readonly memory: MemoryWritePositions;
  private readonly shared: WritePositions | undefined;
  private readonly redis: Redis | undefined;
  private next = 0;
  private lastFaultLog = 0;
  /** Reads of requests the primary served while replicas are configured. */
  primaryReads = 0;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly primary: PoolReader,
    private readonly replicas: ReplicaSet,
    @Inject(REDIS_CONNECTOR) connect: RedisConnector | null,
  ) {
    // Long after any replica still serving has replayed the write (see WritePositions).
    const ttlMs = Math.max(60_000, 10 * config.databaseReplicaMaxLagMs);
    this.memory = new MemoryWritePositions(ttlMs);
    if (replicas.configured && connect) {
      this.redis = connect();
      this.redis.on('error', (error: Error) => this.fault('Redis', error));
      this.shared = new RedisWritePositions(this.redis, config.redisKeyPrefix, ttlMs);
    }
  }

  get routing(): boolean {
    return this.replicas.configured;
  }

  /** The reads of one request of `scope`: routed on their first statement. */
  readerFor(scope: ReadScope | undefined): SqlExecutor {
    if (!this.replicas.configured || scope === undefined) return this.primary;
    return new RoutedReads(this, scope);
  }

  /**
   * After a write of `scope` answered: the primary's WAL position now, which is past the write's
   * commit, kept so the user's next reads wait for it. When it cannot be read, the user reads
   * from the primary until the position would have expired.
   */
  async wrote(scope: ReadScope): Promise<void> {
    let position: Lsn = UNKNOWN_POSITION;
    try {
      const [row] = await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn', []);
      if (typeof row?.lsn === 'string') position = parseLsn(row.lsn);
    } catch (error) {
      this.fault('the primary', error);
    }
    await this.memory.raise(scope, position);
    await this.shared?.raise(scope, position).catch((error: unknown) => this.fault('Redis', error));
  }

  /** The replica to read from for `scope`, or undefined for the primary. */
  async choose(scope: ReadScope): Promise<Replica | undefined> {
    const serving = this.replicas.serving();
    if (serving.length === 0) return undefined;
    const replica = serving[this.next++ % serving.length];
    if (replica === undefined) return undefined;
    let written: Lsn | undefined;
    try {
      written = await (this.shared ?? this.memory).get(scope);
    } catch (error) {
      // Redis cannot say: this instance's own record, else the primary.
      this.fault('Redis', error);
      written = (await this.memory.get(scope)) ?? UNKNOWN_POSITION;
    }
    if (written === undefined || written <= replica.replayed) return replica;
    if (written === UNKNOWN_POSITION) return undefined;
    const replayed = await replica.readReplayed().catch(() => 0n);
    return written <= replayed ? replica : undefined;
  }

  runOnPrimary(sql: string, parameters: unknown[]): Promise<Record<string, unknown>[]> {
    this.primaryReads++;
    return this.primary.query(sql, parameters);
  }

  async runOnReplica(replica: Replica, sql: string, parameters: unknown[]): Promise<Record<string, unknown>[]> {
    const rows = await this.replicas.query(replica, sql, parameters);
    replica.reads++;
    return rows;
  }

  replicaFailed(replica: Replica, error: unknown): void {
    this.replicas.markUnreachable(replica, error);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end') {
      this.redis.removeAllListeners('error');
      this.redis.on('error', () => undefined);
      await this.redis.quit().catch(() => this.redis?.disconnect());
    }
  }

  private fault(what: string, error: unknown): void {
    const now = Date.now();
    if (now - this.lastFaultLog < FAULT_LOG_INTERVAL_MS) return;
    this.lastFaultLog = now;
    const reason = error instanceof Error ? error.message : String(error);
    this.logger.warn(
      `read-your-writes positions: ${what} did not answer (${reason}); reads of recent writers go to the primary`,
    );
  }
}

/** One request's reads: the server is chosen on the first statement and kept. */
class RoutedReads implements SqlExecutor {
  private target: Promise<Replica | undefined> | undefined;
  private replicaFailed = false;

  constructor(
    private readonly router: ReadRouter,
    private readonly scope: ReadScope,
  ) {}

  async query(sql: string, parameters: unknown[] = []): Promise<Record<string, unknown>[]> {
    this.target ??= this.router.choose(this.scope).catch(() => undefined);
    const replica = await this.target;
    if (replica === undefined || this.replicaFailed) return this.router.runOnPrimary(sql, parameters);
    try {
      return await this.router.runOnReplica(replica, sql, parameters);
    } catch (error) {
      // Whatever the replica's fault (gone, restarting, a query cancelled by replay), the
      // primary answers this statement and the rest of the request.
      this.replicaFailed = true;
      if (!isStatementError(error)) this.router.replicaFailed(replica, error);
      return this.router.runOnPrimary(sql, parameters);
    }
  }
}

/**
 * An error in the statement itself (SQLSTATE class 22 data, 23 constraint, 42 syntax or
 * access): the primary will say the same, and the replica stays in service.
 */
function isStatementError(error: unknown): boolean {
  return /^(22|23|42)/.test(sqlStateOf(error) ?? '');
}
