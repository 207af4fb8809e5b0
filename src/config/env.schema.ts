import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const postgresUrl = z.string().refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), {
  error: 'must be a postgres:// or postgresql:// URL',
});

const redisUrl = z
  .string()
  .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), { error: 'must be a redis:// or rediss:// URL' });

const httpUrl = z
  .string()
  .refine((v) => /^https?:\/\//.test(v) && URL.canParse(v), { error: 'must be an http:// or https:// URL' })
  .transform((v) => v.replace(/\/+$/, ''));

/** `*`, or a comma-separated list of exact origins (`https://crm.example.com`, no path). */
const corsOrigins = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  )
  .refine((list) => list.length === 1 || !list.includes('*'), { error: 'must be * alone or a list of origins' })
  .refine(
    (list) =>
      list.every(
        (origin) =>
          origin === '*' || (/^https?:\/\//.test(origin) && URL.canParse(origin) && new URL(origin).origin === origin),
      ),
    {
      error:
        'must be * or comma-separated origins such as https://crm.example.com (scheme, host, optional port; no path)',
    },
  );

/** A whole number from `min` to `max`; `unit` names what it counts in the error. */
const wholeNumber = (min: number, max: number, unit = '') =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number${unit ? ` of ${unit}` : ''}` })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: `must be between ${min} and ${max}` });

const positiveInt = (max: number) => wholeNumber(1, max);

/** A cache's size in megabytes, 0 for none. */
const cacheMegabytes = (cache: string, max: number) =>
  z
    .string()
    .regex(/^\d+$/, { error: `must be a whole number of megabytes (0 turns the ${cache} off)` })
    .transform(Number)
    .refine((n) => n <= max, { error: `must be between 0 and ${max}` });

/** Every environment variable the service reads. Unset and empty mean the same thing. */
export const envSchema = z.object({
  PORT: z
    .string()
    .regex(/^\d+$/, { error: 'must be a port number' })
    .transform(Number)
    .refine((n) => n >= 0 && n <= 65535, { error: 'must be between 0 and 65535' })
    .default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_POOL_MAX: positiveInt(200).default(10),
  DATABASE_POOL_MAX_PER_ENTERPRISE: positiveInt(200).optional(),
  DATABASE_LOCK_TIMEOUT_MS: positiveInt(60_000).default(3000),
  DATABASE_PREPARED_STATEMENTS: booleanFlag.default(true),
  /** Streaming replicas for the request path's reads, comma-separated; unset: every read goes to DATABASE_URL. */
  DATABASE_REPLICA_URLS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    )
    .refine((list) => list.every((url) => /^postgres(ql)?:\/\//.test(url) && URL.canParse(url)), {
      error: 'must be comma-separated postgres:// or postgresql:// URLs',
    })
    .optional(),
  /** A replica further behind the primary than this serves no reads until it catches up. */
  DATABASE_REPLICA_MAX_LAG_MS: positiveInt(600_000).default(1000),
  PAGE_CACHE_MB: cacheMegabytes('page cache', 4096).default(16),
  // On the heap, under the start script's cap (144 MiB): a few times the default at most.
  RECORD_CACHE_MB: cacheMegabytes('record cache', 64).default(8),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: redisUrl.optional(),
  /** Prepended to every key the service writes in Redis: deployments sharing one Redis keep their budgets apart. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[\x21-\x7e]{1,100}$/, { error: 'must be 1 to 100 printable characters without spaces' })
    .default('finance-intake:rate-limit:'),
  APP_KEY: z.string().optional(),
  APP_PREVIOUS_KEYS: z.string().optional(),
  APP_URL: httpUrl.optional(),
  SIGNPROVIDER_A_SECRET: z.string().optional(),
  RATE_LIMIT_PER_MINUTE: positiveInt(1_000_000).default(60),
  TRUST_PROXY: booleanFlag.default(false),
  MIGRATIONS_RUN: booleanFlag.default(true),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  V1_LEGACY_USER_LOOKUP: booleanFlag.default(false),
  WEB_CONCURRENCY: positiveInt(64).default(1),
  CORS_ORIGINS: corsOrigins.optional(),
  /** Unset: login tokens do not expire. At most ten years. */
  TOKEN_LIFETIME_MINUTES: positiveInt(5_256_000).optional(),
  AUDIT_RETENTION_DAYS: positiveInt(36_500).default(400),
  METRICS_PORT: z
    .string()
    .regex(/^\d+$/, { error: 'must be a port number' })
    .transform(Number)
    .refine((n) => n >= 1 && n <= 65535, { error: 'must be between 1 and 65535' })
    .optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** Outbound webhooks: allow http: and loopback/private addresses (tests, local development). */
  WEBHOOK_ALLOW_PRIVATE_URLS: booleanFlag.default(false),
  /** Whether this process delivers outbound webhooks (every process does by default). */
  WEBHOOK_DELIVERY: booleanFlag.default(true),
  /** How often an idle process looks for endpoints with changes to deliver. */
  WEBHOOK_POLL_INTERVAL_MS: wholeNumber(10, 60_000, 'milliseconds').default(100),
  /**
   * How long an idle process waits at most between two looks once it has found nothing to send:
   * the wait doubles from WEBHOOK_POLL_INTERVAL_MS up to this. A write this process answers, or
   * an endpoint created, changed or replayed here, wakes it at once.
   */
  WEBHOOK_IDLE_POLL_MAX_MS: wholeNumber(10, 600_000, 'milliseconds').default(5000),
  /**
   * How long a process waits between two looks while no enabled endpoint exists at all: nothing
   * can be due, so it sends nothing until an endpoint is created, changed or replayed through it
   * (which wakes it at once) or this wait ends.
   */
  WEBHOOK_NO_ENDPOINTS_POLL_MS: wholeNumber(10, 3_600_000, 'milliseconds').default(300_000),
  /** Endpoints one process delivers at the same time. */
  WEBHOOK_CONCURRENCY: positiveInt(1000).default(32),
  /**
   * Endpoints of one enterprise delivered at the same time, by all processes together: a tenant
   * whose receivers are slow holds at most this many delivery slots, never another tenant's.
   */
  WEBHOOK_ENTERPRISE_CONCURRENCY: positiveInt(1000).default(4),
  /** Webhook endpoints an enterprise may register; a create past it answers 422. */
  WEBHOOK_ENDPOINTS_PER_ENTERPRISE: positiveInt(10_000).default(25),
  /**
   * Deliveries yield to requests: while this process serves at least this many requests at once,
   * it starts no delivery round (0: never yields), for at most WEBHOOK_YIELD_MAX_MS at a time.
   */
  WEBHOOK_YIELD_REQUESTS: wholeNumber(0, 10_000).default(16),
  /** The longest a delivery round waits for a burst of requests to pass. */
  WEBHOOK_YIELD_MAX_MS: wholeNumber(0, 300_000, 'milliseconds').default(10_000),
  /**
   * Connections of the delivery worker's own pool (each process), apart from the requests' pool
   * (DATABASE_POOL_MAX), so deliveries never take a connection a request waits for. The embedded
   * database has one session for everything and ignores it.
   */
  WEBHOOK_DATABASE_POOL_MAX: positiveInt(50).default(4),
  /**
   * How long an endpoint's lease lasts without being renewed: after a process dies, another one
   * takes its endpoints over within this. Above the 10 s answer timeout, so a slow answer never
   * lets a second process in.
   */
  WEBHOOK_LEASE_SECONDS: z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number of seconds' })
    .transform(Number)
    .refine((n) => n >= 15 && n <= 3600, { error: 'must be between 15 and 3600' })
    .default(30),
});

export type Env = z.infer<typeof envSchema>;
