import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateAppKey, parseAppKey } from './app-key.js';
import { ConfigError } from './config-error.js';
import { envSchema, type Env } from './env.schema.js';

export type LogLevel = Env['LOG_LEVEL'];

/** The validated configuration, read once at start-up. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  /** Unset: the embedded PostgreSQL under `dataDir` is used. */
  readonly databaseUrl: string | undefined;
  readonly databasePoolMax: number;
  /**
   * Requests of one enterprise served at once per process (its bulkhead), below the pool's size;
   * undefined with a pool of one connection (the embedded database), where there is no share to keep.
   */
  readonly databasePoolMaxPerEnterprise: number | undefined;
  /** A request waits at most this long for a row lock (lock_timeout) or a place in its bulkhead: then 503. */
  readonly databaseLockTimeoutMs: number;
  /** Name the request path's reads so PostgreSQL parses and plans each once per connection (never on the embedded database). */
  readonly databasePreparedStatements: boolean;
  /** Streaming replicas the request path's reads may go to; empty: all reads on the primary. */
  readonly databaseReplicaUrls: readonly string[];
  /** A replica further behind than this (milliseconds) serves no reads. */
  readonly databaseReplicaMaxLagMs: number;
  /** Megabytes of list pages kept under their ETag and answered again while it holds; 0: none. */
  readonly pageCacheMegabytes: number;
  /** Megabytes (estimated, of heap) of change-feed and webhook records kept under their change; 0: none. */
  readonly recordCacheMegabytes: number;
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  /** The start of every Redis key the rate limit writes. */
  readonly redisKeyPrefix: string;
  /** The current key first, then previous keys (decryption only). */
  readonly encryptionKeys: readonly Buffer[];
  readonly appUrl: string | undefined;
  readonly signProviderASecret: string | undefined;
  readonly rateLimitPerMinute: number;
  readonly trustProxy: boolean;
  readonly migrationsRun: boolean;
  readonly logLevel: LogLevel;
  readonly v1LegacyUserLookup: boolean;
  readonly webConcurrency: number;
  /** Origins browsers may call the API from; empty: no CORS headers at all (CORS off). */
  readonly corsOrigins: readonly string[];
  /** Minutes a login token stays valid; undefined: until revoked. */
  readonly tokenLifetimeMinutes: number | undefined;
  /** Days an audit event is kept (AUDIT_RETENTION_DAYS). */
  readonly auditRetentionDays: number;
  /** The Prometheus listener's port; unset: no metrics are collected or served. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  readonly webhooks: WebhookConfig;
}

/** Outbound webhooks (docs/operator-guide.md lists the variables). */
export interface WebhookConfig {
  /** http: URLs and loopback, private and link-local addresses allowed (tests, local development). */
  readonly allowPrivateUrls: boolean;
  /** This process delivers. */
  readonly delivery: boolean;
  readonly pollIntervalMs: number;
  /** The longest wait between two looks of an idle worker (never below pollIntervalMs). */
  readonly idlePollMaxMs: number;
  /** The wait between two looks while no enabled endpoint exists (never below idlePollMaxMs). */
  readonly noEndpointsPollMs: number;
  readonly concurrency: number;
  /** Endpoints of one enterprise delivered at once, across all processes. */
  readonly enterpriseConcurrency: number;
  /** Endpoints an enterprise may register. */
  readonly endpointsPerEnterprise: number;
  readonly leaseSeconds: number;
  /** Connections of the worker's own pool, apart from the requests' (not on the embedded database). */
  readonly poolMax: number;
  /** Requests served at once from which no delivery round starts (0: deliveries never yield). */
  readonly yieldAtRequests: number;
  /** The longest deliveries yield to requests before a round runs anyway. */
  readonly yieldAtMostMs: number;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

const KEY_FILE = 'app-key';

/** Where the embedded database's generated key is kept (DATA_DIR/app-key). */
export function embeddedKeyFile(source: NodeJS.ProcessEnv): string {
  return join(resolve(source.DATA_DIR?.trim() || './.data'), KEY_FILE);
}

function readEnv(source: NodeJS.ProcessEnv): Env {
  const cleaned: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && value.trim() !== '') cleaned[name] = value.trim();
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${name} ${issue?.message ?? 'is invalid'}.`);
  }
  return parsed.data;
}

function parseKeyOrFail(name: string, text: string): Buffer {
  const key = parseAppKey(text);
  if (!key) {
    throw new ConfigError(
      `Invalid configuration: ${name} must be 32 bytes written as base64:<base64> or 64 hex characters.`,
    );
  }
  return key;
}

/** With the embedded database and no APP_KEY, a key is made once and kept beside the data. */
function embeddedKey(dataDir: string): Buffer {
  const file = join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, `${generateAppKey()}\n`, { mode: 0o600 });
  }
  return parseKeyOrFail(`APP_KEY (from ${file})`, readFileSync(file, 'utf8'));
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): AppConfig {
  const env = readEnv(source);
  const dataDir = resolve(env.DATA_DIR);

  let current: Buffer;
  if (env.APP_KEY) current = parseKeyOrFail('APP_KEY', env.APP_KEY);
  else if (env.DATABASE_URL) {
    throw new ConfigError(
      'Invalid configuration: APP_KEY is required when DATABASE_URL is set (32 bytes, base64:<base64> or 64 hex characters).',
    );
  } else current = embeddedKey(dataDir);

  const previous = (env.APP_PREVIOUS_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k) => parseKeyOrFail('APP_PREVIOUS_KEYS', k));

  if (!env.DATABASE_URL && env.WEB_CONCURRENCY > 1) {
    throw new ConfigError(
      'Invalid configuration: WEB_CONCURRENCY above 1 needs DATABASE_URL; the embedded database serves one process.',
    );
  }

  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === env.PORT) {
    throw new ConfigError(
      'Invalid configuration: METRICS_PORT must differ from PORT; metrics have a listener of their own.',
    );
  }

  if (!env.DATABASE_URL && (env.DATABASE_REPLICA_URLS ?? []).length > 0) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_REPLICA_URLS needs DATABASE_URL (the primary); the embedded database has no replicas.',
    );
  }

  const poolMax = env.DATABASE_URL ? env.DATABASE_POOL_MAX : 1;
  if (env.DATABASE_POOL_MAX_PER_ENTERPRISE !== undefined && env.DATABASE_POOL_MAX_PER_ENTERPRISE > poolMax) {
    throw new ConfigError(
      `Invalid configuration: DATABASE_POOL_MAX_PER_ENTERPRISE must be at most the pool's size (${poolMax}).`,
    );
  }

  return {
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    databasePoolMax: poolMax,
    // Half the pool by default: one tenant's waiting requests leave the other half to the rest.
    databasePoolMaxPerEnterprise:
      poolMax === 1 ? undefined : (env.DATABASE_POOL_MAX_PER_ENTERPRISE ?? Math.ceil(poolMax / 2)),
    databaseLockTimeoutMs: env.DATABASE_LOCK_TIMEOUT_MS,
    databasePreparedStatements: env.DATABASE_PREPARED_STATEMENTS,
    databaseReplicaUrls: env.DATABASE_REPLICA_URLS ?? [],
    databaseReplicaMaxLagMs: env.DATABASE_REPLICA_MAX_LAG_MS,
    pageCacheMegabytes: env.PAGE_CACHE_MB,
    recordCacheMegabytes: env.RECORD_CACHE_MB,
    dataDir,
    redisUrl: env.REDIS_URL,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    encryptionKeys: [current, ...previous],
    appUrl: env.APP_URL,
    signProviderASecret: env.SIGNPROVIDER_A_SECRET,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    trustProxy: env.TRUST_PROXY,
    migrationsRun: env.MIGRATIONS_RUN,
    logLevel: env.LOG_LEVEL,
    v1LegacyUserLookup: env.V1_LEGACY_USER_LOOKUP,
    webConcurrency: env.WEB_CONCURRENCY,
    corsOrigins: env.CORS_ORIGINS ?? [],
    tokenLifetimeMinutes: env.TOKEN_LIFETIME_MINUTES,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    metricsPort: env.METRICS_PORT,
    metricsHost: env.METRICS_HOST,
    webhooks: {
      allowPrivateUrls: env.WEBHOOK_ALLOW_PRIVATE_URLS,
      delivery: env.WEBHOOK_DELIVERY,
      pollIntervalMs: env.WEBHOOK_POLL_INTERVAL_MS,
      idlePollMaxMs: Math.max(env.WEBHOOK_POLL_INTERVAL_MS, env.WEBHOOK_IDLE_POLL_MAX_MS),
      noEndpointsPollMs: Math.max(
        env.WEBHOOK_POLL_INTERVAL_MS,
        env.WEBHOOK_IDLE_POLL_MAX_MS,
        env.WEBHOOK_NO_ENDPOINTS_POLL_MS,
      ),
      concurrency: env.WEBHOOK_CONCURRENCY,
      enterpriseConcurrency: env.WEBHOOK_ENTERPRISE_CONCURRENCY,
      endpointsPerEnterprise: env.WEBHOOK_ENDPOINTS_PER_ENTERPRISE,
      leaseSeconds: env.WEBHOOK_LEASE_SECONDS,
      poolMax: env.WEBHOOK_DATABASE_POOL_MAX,
      yieldAtRequests: env.WEBHOOK_YIELD_REQUESTS,
      yieldAtMostMs: env.WEBHOOK_YIELD_MAX_MS,
    },
  };
}
