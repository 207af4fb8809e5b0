import type { Redis } from 'ioredis';
import type { AppConfig } from './app-config.js';

/**
 * Opens a client to REDIS_URL for the request path: a command fails at once while Redis is
 * unreachable (no offline queue, no retries) and within a second when it hangs, so a caller
 * falls back to its in-process state instead of holding a request; the client reconnects by
 * itself, every 250 ms more up to 2 s.
 */
export type RedisConnector = () => Redis;

/** The connector, or null when REDIS_URL is not set. */
export const REDIS_CONNECTOR = Symbol('REDIS_CONNECTOR');

/**
 * ioredis is loaded only when REDIS_URL is set: a process without Redis (one server, the
 * embedded database, the CLI) does not carry its modules in its heap, and a smaller heap costs
 * less to collect on every large answer.
 */
export async function redisConnector(config: Pick<AppConfig, 'redisUrl'>): Promise<RedisConnector | null> {
  const url = config.redisUrl;
  if (!url) return null;
  const { Redis } = await import('ioredis');
  return () =>
    new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      commandTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
    });
}
