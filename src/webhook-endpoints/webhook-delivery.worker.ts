import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { RepeatedWarnings } from '../logging/repeated-warnings.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { serialiseJson } from '../database/json-text.js';
import type { RequestsInFlight } from '../common/http/requests-in-flight.js';
import { FieldCipher } from '../crypto/field-cipher.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { databaseOptions, type DatabaseTarget } from '../database/data-source-options.js';
import { DATABASE_TARGET } from '../database/database-target-token.js';
import { nextIdleWait } from '../database/idle-wait.js';
import { PoolReader } from '../database/pool-reader.js';
import { affectedRows, selectRows } from '../database/sql.js';
import { sqlStateOf } from '../database/sql-state.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { comparePositions } from '../changes/change-log.queries.js';
import { readChangeSlice, type ChangeSliceEntry } from '../changes/change-slice.js';
import type { ChangePosition } from '../changes/change-types.js';
import { PresentedChanges } from '../changes/presented-changes.js';
import { endpointLags } from './webhook-backlog.queries.js';
import { WebhookClock } from './webhook-clock.js';
import { WebhookResolver } from './webhook-resolver.js';
import { DISABLED_AFTER_FAILURES, DISABLED_PLAIN_HTTP, failureWindowOver, retryDelayMs } from './webhook-schedule.js';
import { WebhookSender, type SendResult } from './webhook-sender.js';
import { eventOf, typesOf, webhookIdOf } from './webhook-stream.js';

/**
 * The save that disables an endpoint, with the trail's entry in the same statement: the disable
 * and its record commit together or not at all, and an endpoint already disabled records nothing.
 */
function systemDisableAudited(update: string): string {
  return `WITH saved AS (${update} RETURNING id, enterprise_id),
     audited AS (
       INSERT INTO audit_events (enterprise_id, actor, action, target_type, target_id, details)
       SELECT enterprise_id, 'system', 'webhook_endpoint.disabled', 'webhook_endpoint', id::text,
              jsonb_build_object('reason', $10::text)
         FROM saved)
   SELECT count(*)::int AS held FROM saved`;
}

/** Entries read from the change log at a time. */
const BATCH = 100;
/** Delivered attempts are logged 7 days. */
const KEEP_DELIVERIES = '7 days';
const PURGE_EVERY_MS = 10 * 60 * 1000;
/** How the worker's connections show in pg_stat_activity, apart from the requests' (`finance-intake`). */
export const WEBHOOK_APPLICATION_NAME = 'finance-intake-webhooks';

interface LeasedEndpoint {
  id: string;
  enterprise_id: string;
  url: string;
  types: string[];
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  cursor_xid: string;
  cursor_seq: string;
  generation: number;
  failures: number;
  failing_since: Date | null;
  /** The row's `updated_at` when claimed: every change made through the API moves it. */
  revision: string;
}

interface Attempt {
  webhookId: string;
  eventType: string;
  attempt: number;
  result: SendResult;
}

/** Where an endpoint stands while a process delivers it, saved with each renewal of its lease. */
interface StreamState {
  cursor: ChangePosition;
  failures: number;
  failingSince: Date | null;
  nextAttemptAt: Date | null;
  /** Why the endpoint is disabled by this round (null: it is not). */
  disabled: string | null;
}

/**
 * Delivers outbound webhooks from the change log, in every process. Each endpoint is delivered by
 * one process at a time: a process takes an endpoint by writing its name and a lease expiry into
 * the endpoint's row (one UPDATE of the rows whose lease ran out, RETURNING them), renews it as
 * it saves progress, and gives it back when the endpoint is caught up or waiting for a retry. No
 * transaction is open while a request is in flight, so a process killed with `kill -9` leaves
 * only a lease that runs out; another process then sends again what was not acknowledged.
 *
 * Its statements run on a small pool of its own (WEBHOOK_DATABASE_POOL_MAX connections), never on
 * the requests' pool: a request never waits for a connection a delivery holds, and however many
 * endpoints are due, deliveries never take more than that many connections. The embedded database
 * has one session for everything, so there the worker shares the application's data source.
 */
@Injectable()
export class WebhookDeliveryWorker implements OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  /** The poll's own failures (a database that is down): once a minute per cause, not per poll. */
  private readonly warnings = new RepeatedWarnings(this.logger);
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, Promise<void>>();
  private sender: WebhookSender | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  /** The wait after the last look (see nextWait). */
  private idleDelayMs = 0;
  /**
   * What the idle looks since the last work or wake found of enabled endpoints: not asked yet,
   * some (not asked again this idle spell), or none at all (see nextWait).
   */
  private endpoints: 'unknown' | 'some' | 'none' = 'unknown';
  private ticking: Promise<void> | undefined;
  private lastPurge = 0;
  private metrics: ServiceMetrics | undefined;
  private requests: RequestsInFlight | undefined;
  /** When the last scheduled look started (a wake waits a poll interval from it). */
  private lastLookAt = 0;
  /** When the last round was let start (yielding to requests counts from it). */
  private lastRoundAt = 0;
  /** The worker's own data source while it runs (not on the embedded database). */
  private own: DataSource | undefined;
  private opening: Promise<DataSource> | undefined;

  constructor(
    @InjectDataSource() private readonly appDataSource: DataSource,
    @Inject(DATABASE_TARGET) private readonly target: DatabaseTarget,
    private readonly appReader: PoolReader,
    private readonly cipher: FieldCipher,
    private readonly clock: WebhookClock,
    private readonly resolver: WebhookResolver,
    private readonly records: PresentedChanges,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Metrics to count deliveries in, and the backlog gauge to answer from the database. */
  useMetrics(metrics: ServiceMetrics): void {
    this.metrics = metrics;
    metrics.watchWebhookBacklog(() => this.backlog());
  }

  /**
   * The process's requests in flight: while there are many (a burst on a busy process), no round
   * starts, so deliveries do not take CPU from the requests; the changes of the meantime go out
   * once it has passed, or after WEBHOOK_YIELD_MAX_MS at the latest.
   */
  yieldTo(requests: RequestsInFlight): void {
    this.requests = requests;
  }

  /** Whether the process serves enough requests at once for deliveries to give way. */
  private busyWithRequests(): boolean {
    return this.requests !== undefined && this.requests.current >= this.config.webhooks.yieldAtRequests;
  }

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.idleDelayMs = this.config.webhooks.pollIntervalMs;
    this.sender = new WebhookSender(this.config.webhooks.allowPrivateUrls, (host) => this.resolver.resolve(host));
    this.schedule(0);
  }

  /** Stops taking endpoints, waits for the deliveries in flight, and gives their leases back. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled(this.active.values());
    await this.sender?.close();
    this.sender = undefined;
    await this.opening?.catch(() => undefined);
    this.opening = undefined;
    const own = this.own;
    this.own = undefined;
    if (own?.isInitialized) await own.destroy();
  }

  /**
   * Where the worker's statements run: its own pool, opened on first use (again after a failure
   * to open it), or the application's on the embedded database.
   */
  private get dataSource(): DataSource {
    return this.own?.isInitialized ? this.own : this.appDataSource;
  }

  /** The change slices' reader on the worker's pool, its statements named like the service's. */
  private get sliceReader(): PoolReader {
    return new PoolReader(this.dataSource, this.appReader.preparesStatements);
  }

  private async openOwn(): Promise<void> {
    if (this.target.embedded === true || this.own?.isInitialized) return;
    this.opening ??= (async () => {
      const own = new DataSource(
        databaseOptions(
          {
            url: this.target.url,
            poolMax: this.config.webhooks.poolMax,
            lockTimeoutMs: this.config.databaseLockTimeoutMs,
            applicationName: WEBHOOK_APPLICATION_NAME,
          },
          [],
          false,
          'service',
        ),
      );
      return own.initialize();
    })();
    try {
      this.own = await this.opening;
    } finally {
      this.opening = undefined;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /**
   * Looks for work within the poll interval instead of at the end of the current idle wait:
   * something this process did may have given endpoints changes to send (a write it answered, an
   * endpoint created, changed or replayed). At once when the last look is that long ago, else one
   * poll interval after it: a stream of writes makes the worker look once per interval, not once
   * per write (each look after one that found nothing would double the wait, and the next write
   * would bring it back at once).
   */
  wake(): void {
    const { pollIntervalMs } = this.config.webhooks;
    if (!this.running || this.idleDelayMs === pollIntervalMs) return;
    this.idleDelayMs = pollIntervalMs;
    this.endpoints = 'unknown';
    if (!this.ticking) this.schedule(Math.max(0, this.lastLookAt + pollIntervalMs - Date.now()));
  }

  /**
   * Runs one round now (tests and the bench call it instead of waiting for the poll); whether
   * it found or still has work (so the next look comes soon).
   */
  async tick(): Promise<boolean> {
    if (!this.running) return false;
    const free = this.config.webhooks.concurrency - this.active.size;
    if (free <= 0) return true;
    // A burst of requests: no round starts, until it has lasted WEBHOOK_YIELD_MAX_MS; a round
    // started then delivers everything due (the lag stays bounded however long the burst).
    const busy = this.busyWithRequests();
    if (busy && Date.now() - this.lastRoundAt < this.config.webhooks.yieldAtMostMs) return true;
    this.lastRoundAt = Date.now();
    await this.openOwn();
    if (!this.running) return false;
    const endpoints = await this.claim(free);
    // Every free slot taken: more endpoints may be due, so a slot freed is filled at once.
    const full = endpoints.length === free;
    for (const endpoint of endpoints) {
      // Otherwise an endpoint given back waits for the next poll: its changes of the meantime go
      // out together in the next round (one claim, horizon and slice read for all of them), and
      // one whose next entries wait behind an open writer of its enterprise is not claimed and
      // read again and again for as long as that writer stays open.
      const work = this.deliver(endpoint, !busy)
        .catch((error: unknown) => {
          this.warnings.warn('webhook delivery round failed', error, { endpoint_id: endpoint.id });
        })
        .finally(() => {
          this.active.delete(endpoint.id);
          if (full) this.schedule(0);
        });
      this.active.set(endpoint.id, work);
    }
    if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
      this.lastPurge = Date.now();
      await this.dataSource.query(
        `DELETE FROM webhook_deliveries WHERE created_at < now() - interval '${KEEP_DELIVERIES}'`,
      );
    }
    const working = endpoints.length > 0 || this.active.size > 0;
    if (working) {
      this.endpoints = 'unknown';
    } else if (this.idleDelayMs >= this.config.webhooks.idlePollMaxMs && this.endpoints !== 'some') {
      // The waits have grown to their longest: is there any endpoint at all to wait for? Asked
      // once per idle spell while there are some, at each (rare) look while there are none.
      const [row] = await selectRows<{ any: boolean }>(
        this.dataSource,
        'SELECT EXISTS (SELECT 1 FROM webhook_endpoints WHERE enabled) AS any',
      );
      this.endpoints = row?.any === true ? 'some' : 'none';
    }
    return working;
  }

  /**
   * The wait before the next look: the poll interval while there is work; after a look that
   * found none, twice the last wait, up to WEBHOOK_IDLE_POLL_MAX_MS, so an idle process sends
   * a statement every few seconds instead of ten a second; WEBHOOK_NO_ENDPOINTS_POLL_MS (5
   * minutes) while no enabled endpoint exists at all.
   */
  private nextWait(working: boolean): number {
    const { pollIntervalMs, idlePollMaxMs, noEndpointsPollMs } = this.config.webhooks;
    this.idleDelayMs = nextIdleWait(this.idleDelayMs, working, pollIntervalMs, idlePollMaxMs);
    // No enabled endpoint anywhere: nothing can come due, and creating one wakes the process
    // that created it (and the next look of every other one finds it).
    return this.endpoints === 'none' && !working ? noEndpointsPollMs : this.idleDelayMs;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.ticking) {
        this.schedule(this.config.webhooks.pollIntervalMs);
        return;
      }
      this.lastLookAt = Date.now();
      this.ticking = this.tick()
        .then((working) => this.nextWait(working))
        .catch((error: unknown) => {
          this.warnings.warn('webhook delivery poll failed', error);
          return this.nextWait(false);
        })
        .then((wait) => {
          this.ticking = undefined;
          this.schedule(wait);
        });
    }, delayMs);
  }

  /**
   * Takes up to `limit` endpoints that are enabled, not leased (or whose lease ran out), not
   * waiting for a retry, and have entries after their position. Fair between enterprises: no
   * enterprise holds more than WEBHOOK_ENTERPRISE_CONCURRENCY leases at once (counted over every
   * process, from the leases in the table), and the free slots go round the enterprises with work
   * waiting (each one's first endpoint, then each one's second..., ties drawn at random so no
   * enterprise is always first), so a tenant whose receivers answer slowly never takes the slots
   * another tenant's deliveries need. SKIP LOCKED keeps processes claiming at once from waiting
   * on each other; the UPDATE's own lease condition makes a row taken meanwhile drop out.
   */
  private async claim(limit: number): Promise<LeasedEndpoint[]> {
    const busy = [...this.active.keys()];
    return selectRows<LeasedEndpoint>(
      this.dataSource,
      `WITH candidates AS (
            SELECT w.id, w.enterprise_id, w.next_attempt_at FROM webhook_endpoints w
             WHERE w.enabled
               AND (w.lease_expires_at IS NULL OR w.lease_expires_at < now())
               AND (w.next_attempt_at IS NULL OR w.next_attempt_at <= $3)
               AND w.id <> ALL ($5::uuid[])
               AND EXISTS (
                     SELECT 1 FROM change_log c
                      WHERE c.enterprise_id = w.enterprise_id
                        AND (c.changed_xid, c.seq) > (w.cursor_xid::text::xid8, w.cursor_seq)
                        AND (cardinality(w.types) = 0 OR c.record_type = ANY (w.types)))
               FOR UPDATE SKIP LOCKED),
          due AS (
            SELECT c.id, c.enterprise_id, c.next_attempt_at,
                   row_number() OVER (PARTITION BY c.enterprise_id ORDER BY c.next_attempt_at NULLS FIRST, random()) AS turn
              FROM candidates c),
          held AS (
            SELECT l.enterprise_id, count(*) AS leases FROM webhook_endpoints l
             WHERE l.lease_expires_at >= now() AND l.enterprise_id IN (SELECT enterprise_id FROM due)
             GROUP BY l.enterprise_id),
          chosen AS (
            SELECT d.id FROM due d LEFT JOIN held h ON h.enterprise_id = d.enterprise_id
             WHERE d.turn + coalesce(h.leases, 0) <= $6
             ORDER BY d.turn, d.next_attempt_at NULLS FIRST, random()
             LIMIT $4)
      UPDATE webhook_endpoints e
          SET lease_owner = $1, lease_expires_at = now() + make_interval(secs => $2)
        WHERE e.id IN (SELECT id FROM chosen)
          AND (e.lease_expires_at IS NULL OR e.lease_expires_at < now())
      RETURNING e.id, e.enterprise_id, e.url, e.types, e.secret_encrypted, e.previous_secret_encrypted,
                e.previous_secret_expires_at, e.cursor_xid::text AS cursor_xid, e.cursor_seq::text AS cursor_seq,
                e.generation, e.failures, e.failing_since, e.updated_at::text AS revision`,
      [
        this.owner,
        this.config.webhooks.leaseSeconds,
        this.clock.now(),
        limit,
        busy,
        this.config.webhooks.enterpriseConcurrency,
      ],
    ).then(returnedRows);
  }

  /**
   * Whether the endpoint is still as it was claimed, before each attempt: still this process's,
   * enabled, and not changed since (a PATCH, a rotation, a replay or an enable all set
   * `updated_at`; a delete removes the row). When it is not, the round ends and the endpoint is
   * claimed again as it is now, so no attempt that starts after a change has answered uses the
   * state from before it: at most the one attempt per endpoint already on the wire does.
   */
  private async unchanged(endpoint: LeasedEndpoint): Promise<boolean> {
    const rows = await selectRows<{ revision: string }>(
      this.dataSource,
      `SELECT updated_at::text AS revision FROM webhook_endpoints WHERE id = $1 AND lease_owner = $2 AND enabled`,
      [endpoint.id, this.owner],
    );
    return rows[0]?.revision === endpoint.revision;
  }

  private secretsOf(endpoint: LeasedEndpoint): string[] {
    const secrets = [this.cipher.decrypt(endpoint.secret_encrypted)];
    const expires = endpoint.previous_secret_expires_at;
    if (endpoint.previous_secret_encrypted && expires && expires.getTime() > Date.now()) {
      secrets.push(this.cipher.decrypt(endpoint.previous_secret_encrypted));
    }
    return secrets;
  }

  /**
   * One round of an endpoint: slices of its stream until it is caught up or an attempt failed,
   * or, when `givesWayToRequests`, until the process gets busy with requests (the rest goes out
   * in a later round).
   */
  private async deliver(endpoint: LeasedEndpoint, givesWayToRequests: boolean): Promise<void> {
    const sender = this.sender;
    if (!sender) return;
    const secrets = this.secretsOf(endpoint);
    const types = typesOf(endpoint.types);
    const state: StreamState = {
      cursor: { xid: BigInt(endpoint.cursor_xid), seq: BigInt(endpoint.cursor_seq) },
      failures: endpoint.failures,
      failingSince: endpoint.failing_since,
      nextAttemptAt: null,
      disabled: null,
    };
    // Saved while http: was allowed, read by a process that does not allow it: paused, never sent in clear.
    if (!this.config.webhooks.allowPrivateUrls && new URL(endpoint.url).protocol !== 'https:') {
      state.disabled = DISABLED_PLAIN_HTTP;
      try {
        await this.save(endpoint, state, []);
      } finally {
        await this.release(endpoint.id);
      }
      return;
    }
    const renewEveryMs = (this.config.webhooks.leaseSeconds * 1000) / 3;
    let held = true;
    let changed = false;
    try {
      while (this.running && held) {
        const slice = await readChangeSlice(
          this.sliceReader,
          this.records,
          endpoint.enterprise_id,
          state.cursor,
          types,
          BATCH,
        );
        const attempts: Attempt[] = [];
        let savedAt = Date.now();
        let failed = false;
        let delivered = 0;
        for (const item of slice.entries) {
          if (!this.running) break;
          if (Date.now() - savedAt > renewEveryMs) {
            held = await this.save(endpoint, state, attempts.splice(0));
            savedAt = Date.now();
            if (!held) break;
          }
          if (!(await this.unchanged(endpoint))) {
            changed = true;
            break;
          }
          const attempt = await this.send(sender, endpoint, item, secrets, state.failures + 1);
          attempts.push(attempt);
          if (attempt.result.outcome === 'delivered') {
            state.cursor = item.position;
            state.failures = 0;
            state.failingSince = null;
            delivered += 1;
            continue;
          }
          this.fail(state);
          failed = true;
          break;
        }
        if (!held) break;
        if (changed) {
          // What was delivered is saved (unless the endpoint was deleted or replayed meanwhile:
          // then the save does not hold); the endpoint is then claimed again as it is now.
          if (attempts.length > 0) await this.save(endpoint, state, attempts);
          break;
        }
        // An empty slice that moves nothing: the state is as last saved (or claimed), nothing to
        // write; the lease goes back below.
        if (slice.entries.length === 0 && comparePositions(slice.next, state.cursor) === 0) break;
        if (delivered === slice.entries.length) state.cursor = slice.next;
        held = await this.save(endpoint, state, attempts);
        if (failed || !slice.hasMore || (givesWayToRequests && this.busyWithRequests())) break;
      }
    } finally {
      // Given back whatever happened (a replay or a PATCH meanwhile included); a lease another
      // process took after this one's ran out is not touched.
      await this.release(endpoint.id);
      if (changed) this.wake();
    }
  }

  private fail(state: StreamState): void {
    const now = this.clock.now();
    state.failures += 1;
    state.failingSince ??= now;
    if (failureWindowOver(state.failingSince, now)) state.disabled = DISABLED_AFTER_FAILURES;
    state.nextAttemptAt = new Date(now.getTime() + retryDelayMs(state.failures));
  }

  private async send(
    sender: WebhookSender,
    endpoint: LeasedEndpoint,
    item: ChangeSliceEntry,
    secrets: readonly string[],
    attempt: number,
  ): Promise<Attempt> {
    const event = eventOf(item.entry);
    const webhookId = webhookIdOf(endpoint.id, endpoint.generation, item);
    const result = await sender.send(endpoint.url, { webhookId, body: serialiseJson(event), secrets });
    const delivered = result.outcome === 'delivered';
    this.metrics?.observeOutboundWebhook(
      result.outcome,
      result.durationMs / 1000,
      delivered ? (Date.now() - Date.parse(item.entry.changed_at)) / 1000 : undefined,
    );
    const line = {
      endpoint_id: endpoint.id,
      webhook_id: webhookId,
      event_type: event.type,
      attempt,
      status: result.statusCode,
      outcome: result.outcome,
      duration_ms: result.durationMs,
      ...(result.error ? { error: result.error } : {}),
    };
    if (delivered) this.logger.debug(line, 'webhook delivered');
    else this.logger.warn(line, 'webhook delivery failed');
    return { webhookId, eventType: event.type, attempt, result };
  }

  /**
   * Saves the stream's position and retry state and renews the lease, in one statement that holds
   * only while this process still has the lease and no replay moved the stream meanwhile; then
   * logs the attempts. False: the endpoint is no longer this process's to deliver.
   */
  private async save(endpoint: LeasedEndpoint, state: StreamState, attempts: Attempt[]): Promise<boolean> {
    const update = `UPDATE webhook_endpoints
          SET cursor_xid = $3::bigint, cursor_seq = $4::bigint, failures = $5, failing_since = $6,
              next_attempt_at = $7, lease_expires_at = now() + make_interval(secs => $8),
              enabled = enabled AND NOT $9, disabled_reason = CASE WHEN $9 THEN $10 ELSE disabled_reason END,
              updated_at = CASE WHEN $9 THEN now() ELSE updated_at END
        WHERE id = $1 AND lease_owner = $2 AND generation = $11 AND enabled`;
    const parameters = [
      endpoint.id,
      this.owner,
      state.cursor.xid.toString(),
      state.cursor.seq.toString(),
      state.failures,
      state.failingSince,
      state.nextAttemptAt,
      this.config.webhooks.leaseSeconds,
      state.disabled !== null,
      state.disabled,
      endpoint.generation,
    ];
    const held =
      state.disabled === null
        ? await affectedRows(this.dataSource, update, parameters)
        : ((await selectRows<{ held: number }>(this.dataSource, systemDisableAudited(update), parameters))[0]?.held ??
          0);
    if (attempts.length > 0) {
      await this.logAttempts(endpoint, attempts).catch((error: unknown) => {
        // Deleted between the check and the insert: nothing left to log them for.
        if (sqlStateOf(error) !== '23503') throw error;
      });
    }
    if (state.disabled !== null && held > 0) {
      this.logger.warn({ endpoint_id: endpoint.id, reason: state.disabled }, 'webhook endpoint disabled');
    }
    return held > 0 && state.disabled === null;
  }

  /** Logs the attempts; none when the endpoint was deleted meanwhile (its log went with it). */
  private async logAttempts(endpoint: LeasedEndpoint, attempts: Attempt[]): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO webhook_deliveries (enterprise_id, endpoint_id, webhook_id, event_type, attempt, status_code, error, response_body, duration_ms, created_at)
       SELECT $9, $1, a.webhook_id, a.event_type, a.attempt, a.status_code, a.error, a.response_body, a.duration_ms,
              now() + a.n * interval '1 microsecond'
         FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::int[])
              WITH ORDINALITY AS a(webhook_id, event_type, attempt, status_code, error, response_body, duration_ms, n)
        WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = $1)`,
      [
        endpoint.id,
        attempts.map((a) => a.webhookId),
        attempts.map((a) => a.eventType),
        attempts.map((a) => a.attempt),
        attempts.map((a) => a.result.statusCode),
        attempts.map((a) => a.result.error),
        attempts.map((a) => a.result.responseBody),
        attempts.map((a) => a.result.durationMs),
        endpoint.enterprise_id,
      ],
    );
  }

  private async release(endpointId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhook_endpoints SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2`,
      [endpointId, this.owner],
    );
  }

  /** Per enabled endpoint, how old its oldest undelivered entry is (0 when caught up). */
  private async backlog(): Promise<{ endpoint: string; seconds: number }[]> {
    try {
      const lags = await endpointLags(this.dataSource);
      return lags.filter((lag) => lag.enabled).map((lag) => ({ endpoint: lag.id, seconds: lag.lag_seconds }));
    } catch (error) {
      this.warnings.warn('webhook backlog could not be read', error);
      return [];
    }
  }
}

/** The rows of an UPDATE ... RETURNING: TypeORM answers `[rows, count]` for an UPDATE. */
function returnedRows<T>(result: T[]): T[] {
  const [first] = result;
  return Array.isArray(first) ? (first as T[]) : result;
}
