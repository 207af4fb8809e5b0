import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { RepeatedWarnings } from '../logging/repeated-warnings.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { affectedRows, selectRows, type SqlExecutor } from '../database/sql.js';
import { FormValidationException } from '../common/http/validation-failed.exception.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
  IdempotencyMessages,
} from './idempotency-key.js';
import { requestFingerprint } from './request-fingerprint.js';
import type { WriteRequest } from './write-request.decorator.js';

/** How long an answer is remembered. */
export const IDEMPOTENCY_TTL_HOURS = 24;
/** The purge runs at most this often per process, after a write that stored an answer. */
export const PURGE_INTERVAL_MS = 60_000;
const PURGE_BATCH = 1_000;

const EXPIRED = `created_at <= now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`;

/**
 * A write that waited for its place in the process waits for row locks only what is left of the
 * lock bound, for the rest of its transaction (the connection's own bound comes back with the
 * next transaction). Only such a write pays for this statement, and runs in a transaction for it.
 */
async function boundLockWaits(manager: SqlExecutor, leftMs: number): Promise<void> {
  await manager.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(leftMs))}`);
}

/**
 * `Idempotency-Key` on the writes of every writable resource. The key's row is claimed with
 * `INSERT ... ON CONFLICT` inside the transaction of the write and holds the answer when that
 * transaction commits, so exactly one request per key writes, on any number of instances:
 *
 * - a second request with the same key while the first is in flight blocks on the first one's
 *   uncommitted row, then reads its committed answer and replays it (or, if the first rolled
 *   back, claims the key and writes itself);
 * - a crash between claim and commit rolls both back: nothing is left "in flight".
 *
 * The transaction holds one connection and never waits for another, so a pool of one (the
 * embedded database) cannot deadlock: a duplicate just waits for the connection.
 */
@Injectable()
export class IdempotentWrites implements BeforeApplicationShutdown {
  private readonly warnings = new RepeatedWarnings(new Logger(IdempotentWrites.name));
  private lastPurge = 0;
  private purging: Promise<void> | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Runs `write` once per key: without a key it simply runs (as before this existed); with
   * one, a repeat of the same request gets the first answer again (with
   * `Idempotent-Replayed: true`) and writes nothing; a different request is a 422.
   */
  async run<T extends object>(request: WriteRequest, write: (db: SqlExecutor) => Promise<T>): Promise<T> {
    const key = idempotencyKeyOf(request.keyHeader);
    const lockWaitLeftMs = request.lockWaitLeftMs;
    if (key === undefined) {
      if (lockWaitLeftMs === undefined) return write(this.dataSource);
      return this.dataSource.transaction(async (manager) => {
        await boundLockWaits(manager, lockWaitLeftMs);
        return write(manager);
      });
    }
    const fingerprint = requestFingerprint(request.method, request.path, request.body);
    const scope = [request.userId, request.enterpriseId, key];
    const outcome = await this.dataSource.transaction(async (manager) => {
      if (lockWaitLeftMs !== undefined) await boundLockWaits(manager, lockWaitLeftMs);
      // A key older than the TTL that the purge has not reached yet is free again.
      const claimed = await selectRows<{ claimed: number }>(
        manager,
        `INSERT INTO idempotency_keys AS k (user_id, enterprise_id, key, request_sha256) VALUES ($1, $2, $3, $4)
         ON CONFLICT (user_id, enterprise_id, key) DO UPDATE
            SET request_sha256 = EXCLUDED.request_sha256, response_body = NULL, created_at = now()
          WHERE k.${EXPIRED}
         RETURNING 1 AS claimed`,
        [...scope, fingerprint],
      );
      if (claimed.length > 0) {
        const result = await write(manager);
        await manager.query(
          `UPDATE idempotency_keys SET response_body = $4::json WHERE user_id = $1 AND enterprise_id = $2 AND key = $3`,
          [...scope, JSON.stringify(result)],
        );
        return { replayed: false as const, result };
      }
      // Read committed: this statement sees the answer the other request committed.
      const [stored] = await selectRows<{ request_sha256: string; body: string | null }>(
        manager,
        `SELECT request_sha256, response_body::text AS body FROM idempotency_keys
          WHERE user_id = $1 AND enterprise_id = $2 AND key = $3`,
        scope,
      );
      if (!stored || stored.body === null) throw new Error('An idempotency key row has no answer');
      if (stored.request_sha256 !== fingerprint) {
        throw new FormValidationException({ [IDEMPOTENCY_KEY_HEADER]: [IdempotencyMessages.reused] });
      }
      // Stored by this same route from a value of type T.
      return { replayed: true as const, result: JSON.parse(stored.body) as T };
    });
    if (outcome.replayed) void request.reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    else this.purgeSoon();
    return outcome.result;
  }

  /** Deletes the answers older than the TTL, in batches; returns how many it deleted. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      // SKIP LOCKED: two instances purging at once take different rows instead of waiting.
      const deleted = await affectedRows(
        this.dataSource,
        `DELETE FROM idempotency_keys WHERE (user_id, enterprise_id, key) IN (
           SELECT user_id, enterprise_id, key FROM idempotency_keys WHERE ${EXPIRED}
            ORDER BY created_at LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`,
      );
      total += deleted;
      if (deleted < PURGE_BATCH) return total;
    }
  }

  /** Resolves once a purge under way (if any) has finished. */
  async settled(): Promise<void> {
    await this.purging;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.settled();
  }

  /** Lazily, off the request's path: at most once a minute per process, after a stored answer. */
  private purgeSoon(): void {
    const now = Date.now();
    if (this.purging !== undefined || now - this.lastPurge < PURGE_INTERVAL_MS) return;
    this.lastPurge = now;
    this.purging = this.purgeExpired()
      .then(
        () => undefined,
        (error: unknown) => this.warnings.warn('expired idempotency keys could not be purged', error),
      )
      .finally(() => {
        this.purging = undefined;
      });
  }
}
