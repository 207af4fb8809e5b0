import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { RateLimitStorage, type RedisState } from '../common/rate-limit/rate-limit.storage.js';
import { EXPECTED_MIGRATIONS } from '../database/migration-runner.js';
import { PREPARED_STATEMENTS_LOST, PreparedStatementsCheck } from '../database/prepared-statements-check.js';
import { ReplicaSet } from '../database/replicas/replica-set.js';
import { ReadRouter } from '../database/replicas/read-router.js';
import { sqlStateOf, UNDEFINED_TABLE } from '../database/sql-state.js';

export interface HealthReport {
  status: 'ok' | 'unavailable';
  database: 'up' | 'down';
  /** Only when REDIS_URL is set: the shared rate-limit store. */
  redis?: 'up' | 'down';
  message?: string;
}

/** The readiness probe's answer: `/health`'s, plus whether every migration of this release is applied. */
export interface ReadinessReport extends HealthReport {
  /** Unknown while the database does not answer. */
  migrations?: 'applied' | 'pending';
  /** Only with DATABASE_REPLICA_URLS: each replica as the last probe found it. */
  replicas?: ReplicaHealth[];
  /** Only with DATABASE_REPLICA_URLS: read statements of requests the primary answered. */
  primary_reads?: number;
}

/** One replica in the readiness answer; a replica never makes the instance unready (reads fall back). */
export interface ReplicaHealth {
  name: string;
  reachable: boolean;
  /** Reads go to it now: reachable, a standby, within DATABASE_REPLICA_MAX_LAG_MS. */
  serving: boolean;
  /** Milliseconds behind the primary at the last probe; null while unknown. */
  lag_ms: number | null;
  /** Its WAL receiver is connected to the primary; false on a reachable standby means it fell off. */
  receiving: boolean;
  /** Read statements of requests it answered since this process started. */
  reads: number;
}

const PROBE_TIMEOUT_MS = 2_000;

@Injectable()
export class HealthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly rateLimits: RateLimitStorage,
    private readonly replicas: ReplicaSet,
    private readonly router: ReadRouter,
    private readonly preparedStatements: PreparedStatementsCheck,
  ) {}

  async report(): Promise<HealthReport> {
    const up = await this.databaseAnswers();
    const redis = this.redisPart(this.rateLimits.redisState);
    return up
      ? { status: 'ok', database: 'up', ...redis }
      : { status: 'unavailable', database: 'down', ...redis, message: 'The database is not answering.' };
  }

  /**
   * Ready to serve: the database answers, every migration of this release is applied, and the
   * connections keep the request path's named statements (a pooler that loses them fails every
   * read while `SELECT 1` answers). Redis is reported but never makes it unready: the in-process
   * windows serve while it is down.
   */
  async readiness(): Promise<ReadinessReport> {
    const redis = this.redisPart(this.rateLimits.redisState);
    if (!(await this.databaseAnswers())) {
      return { status: 'unavailable', database: 'down', ...redis, message: 'The database is not answering.' };
    }
    const pending = await this.pendingMigrations();
    if (pending === undefined) {
      return { status: 'unavailable', database: 'down', ...redis, message: 'The database is not answering.' };
    }
    if (pending.length > 0) {
      return {
        status: 'unavailable',
        database: 'up',
        migrations: 'pending',
        ...redis,
        message: `${pending.length} database migration(s) not applied yet.`,
      };
    }
    if ((await this.preparedStatements.result()) === 'lost') {
      return {
        status: 'unavailable',
        database: 'up',
        migrations: 'applied',
        ...redis,
        message: PREPARED_STATEMENTS_LOST,
      };
    }
    return { status: 'ok', database: 'up', migrations: 'applied', ...redis, ...this.replicaPart() };
  }

  private replicaPart(): Pick<ReadinessReport, 'replicas' | 'primary_reads'> {
    if (!this.replicas.configured) return {};
    return {
      replicas: this.replicas.status().map((replica) => ({
        name: replica.name,
        reachable: replica.reachable,
        serving: replica.serving,
        lag_ms: replica.lagMs ?? null,
        receiving: replica.receiving,
        reads: replica.reads,
      })),
      primary_reads: this.router.primaryReads,
    };
  }

  /** This release's migrations the database has not recorded; undefined when it did not answer. */
  private async pendingMigrations(): Promise<string[] | undefined> {
    const table = this.dataSource.options.migrationsTableName ?? 'migrations';
    try {
      const rows = await this.withTimeout(
        this.dataSource.query<{ name: string }[]>(`SELECT name FROM ${table} WHERE name = ANY($1)`, [
          EXPECTED_MIGRATIONS,
        ]),
      );
      if (rows === undefined) return undefined;
      const applied = new Set(rows.map((row) => row.name));
      return EXPECTED_MIGRATIONS.filter((name) => !applied.has(name));
    } catch (error: unknown) {
      // No migrations table yet: nothing is applied.
      if (sqlStateOf(error) === UNDEFINED_TABLE) return [...EXPECTED_MIGRATIONS];
      return undefined;
    }
  }

  private redisPart(state: RedisState): Pick<HealthReport, 'redis'> {
    return state === 'not configured' ? {} : { redis: state };
  }

  private async databaseAnswers(): Promise<boolean> {
    const answered = await this.withTimeout(
      this.dataSource
        .query('SELECT 1')
        .then(() => true)
        .catch(() => false),
    );
    return answered ?? false;
  }

  /** The query's result, or undefined when it takes longer than the probe may. */
  private async withTimeout<T>(query: Promise<T>): Promise<T | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), PROBE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
