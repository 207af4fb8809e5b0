import type { Pool } from 'pg';
import type { ReplicaStatus } from '../database/replicas/replica-set.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Method labels: the HTTP methods the API knows; anything else is one label, not a new series. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route label of a request no route matched: never its raw path, which could hold an id. */
export const UNMATCHED_ROUTE = 'unmatched';

export type WebhookProvider = 'signprovider-a' | 'signprovider-b';

/**
 * The service's Prometheus metrics, in a registry of their own (one per application, so tests
 * building several applications in one process never share figures).
 */
export class ServiceMetrics {
  readonly registry = new Registry();

  private readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its answer, by method, route template and status.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly rateLimitRejections = new Counter({
    name: 'finance_intake_rate_limit_rejections_total',
    help: 'Requests refused with 429 because their budget for the minute was spent.',
    registers: [this.registry],
  });

  private readonly webhookDeliveries = new Counter({
    name: 'finance_intake_webhook_deliveries_total',
    help: 'Signature-provider webhook deliveries by provider and outcome.',
    labelNames: ['provider', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly loginFailures = new Counter({
    name: 'finance_intake_login_failures_total',
    help: 'Logins refused for wrong credentials or an inactive user (401).',
    registers: [this.registry],
  });

  private readonly outboundDeliveries = new Counter({
    name: 'finance_intake_outbound_webhook_deliveries_total',
    help: 'Attempts to deliver an outbound webhook, by outcome (delivered, http_error, timeout, network_error, refused_address).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly outboundAttemptDuration = new Histogram({
    name: 'finance_intake_outbound_webhook_attempt_duration_seconds',
    help: 'Time from sending an outbound webhook to the end of its answer.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly outboundLatency = new Histogram({
    name: 'finance_intake_outbound_webhook_delivery_latency_seconds',
    help: 'Time from a change (its change-log entry) to the 2xx of its delivery.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86400],
    registers: [this.registry],
  });

  private backlog: () => Promise<{ endpoint: string; seconds: number }[]> = () => Promise.resolve([]);

  private pool: () => Pool | undefined = () => undefined;

  private replicas: () => ReplicaReport = () => ({ replicas: [], primaryReads: 0 });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.poolGauge('finance_intake_db_pool_connections', 'Connections the database pool holds.', (p) => p.totalCount);
    this.poolGauge('finance_intake_db_pool_idle_connections', 'Pooled connections not in use.', (p) => p.idleCount);
    this.poolGauge(
      'finance_intake_db_pool_waiting_requests',
      'Queries waiting for a pooled connection.',
      (p) => p.waitingCount,
    );
    this.backlogGauge();
    this.replicaGauges();
  }

  /** Where the replica figures are read from at scrape time (only with DATABASE_REPLICA_URLS). */
  watchReplicas(read: () => ReplicaReport): void {
    this.replicas = read;
  }

  private replicaGauges(): void {
    const reachable: Gauge<'replica'> = new Gauge({
      name: 'finance_intake_db_replica_reachable',
      help: 'Per replica: 1 when its last probe answered as a standby, else 0.',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      // Workers probe on their own: 0 when any of them finds it down.
      aggregator: 'min',
      collect: () => {
        reachable.reset();
        for (const r of this.replicas().replicas) reachable.set({ replica: r.name }, r.reachable ? 1 : 0);
      },
    });
    const lag: Gauge<'replica'> = new Gauge({
      name: 'finance_intake_db_replica_lag_seconds',
      help: 'Per reachable replica: how far behind the primary its replay was at its last probe.',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      aggregator: 'max',
      collect: () => {
        lag.reset();
        for (const r of this.replicas().replicas)
          if (r.lagMs !== undefined) lag.set({ replica: r.name }, r.lagMs / 1000);
      },
    });
    const serving: Gauge<'replica'> = new Gauge({
      name: 'finance_intake_db_replica_serving',
      help: 'Per replica: 1 while it serves reads (reachable and within DATABASE_REPLICA_MAX_LAG_MS), else 0.',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      aggregator: 'min',
      collect: () => {
        serving.reset();
        for (const r of this.replicas().replicas) serving.set({ replica: r.name }, r.serving ? 1 : 0);
      },
    });
    const reads: Counter<'server'> = new Counter({
      name: 'finance_intake_db_routed_reads_total',
      help: 'Read statements of requests, by the server that answered them (a replica, or primary).',
      labelNames: ['server'] as const,
      registers: [this.registry],
      collect: () => {
        const report = this.replicas();
        reads.reset();
        if (report.replicas.length === 0) return;
        reads.inc({ server: 'primary' }, report.primaryReads);
        for (const r of report.replicas) reads.inc({ server: r.name }, r.reads);
      },
    });
  }

  private poolGauge(name: string, help: string, read: (pool: Pool) => number): void {
    const gauge: Gauge = new Gauge({
      name,
      help,
      registers: [this.registry],
      // Read at scrape time; the pool exists only while the database connection is open.
      collect: () => {
        const pool = this.pool();
        gauge.set(pool ? read(pool) : 0);
      },
    });
  }

  /** An outbound webhook attempt's outcome and duration; `latencySeconds` when it was delivered. */
  observeOutboundWebhook(outcome: string, seconds: number, latencySeconds?: number): void {
    this.outboundDeliveries.inc({ outcome });
    this.outboundAttemptDuration.observe(seconds);
    if (latencySeconds !== undefined) this.outboundLatency.observe(Math.max(0, latencySeconds));
  }

  /** Where the per-endpoint age of the oldest undelivered entry is read from at scrape time. */
  watchWebhookBacklog(read: () => Promise<{ endpoint: string; seconds: number }[]>): void {
    this.backlog = read;
  }

  private backlogGauge(): void {
    const gauge: Gauge<'endpoint'> = new Gauge({
      name: 'finance_intake_outbound_webhook_oldest_undelivered_seconds',
      help: 'Per enabled endpoint, the age of its oldest change not delivered yet (0 when it is caught up).',
      labelNames: ['endpoint'] as const,
      registers: [this.registry],
      // Every process reads the same figure from the database: workers' copies are not summed.
      aggregator: 'max',
      collect: async () => {
        gauge.reset();
        for (const { endpoint, seconds } of await this.backlog()) gauge.set({ endpoint }, seconds);
      },
    });
  }

  /** Where the pool gauges read from (TypeORM opens the pool during start-up). */
  watchPool(pool: () => Pool | undefined): void {
    this.pool = pool;
  }

  observeRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    const status = String(statusCode);
    this.requestDuration.observe(
      { method: KNOWN_METHODS.has(method) ? method : 'other', route: route ?? UNMATCHED_ROUTE, status_code: status },
      seconds,
    );
    if (statusCode === 429) this.rateLimitRejections.inc();
    const provider = webhookProvider(route);
    if (provider) this.webhookDeliveries.inc({ provider, outcome: webhookOutcome(statusCode) });
    if (statusCode === 401 && route !== undefined && LOGIN_ROUTES.has(route)) this.loginFailures.inc();
  }
}

/** The replicas' figures the metrics read at scrape time. */
export interface ReplicaReport {
  readonly replicas: readonly ReplicaStatus[];
  /** Read statements of requests the primary answered. */
  readonly primaryReads: number;
}

const LOGIN_ROUTES = new Set(['/api/v1/login', '/api/v2/login']);

function webhookProvider(route: string | undefined): WebhookProvider | undefined {
  if (route === '/api/webhooks/signprovider-a') return 'signprovider-a';
  if (route === '/api/webhooks/signprovider-b') return 'signprovider-b';
  return undefined;
}

/** A delivery's outcome, from the answer the provider got. */
function webhookOutcome(statusCode: number): string {
  if (statusCode === 200) return 'accepted';
  if (statusCode === 401) return 'bad_signature';
  if (statusCode === 422) return 'invalid_payload';
  if (statusCode === 429) return 'rate_limited';
  if (statusCode >= 500) return 'error';
  return 'refused';
}
