import type { Redis, RedisOptions } from 'ioredis';
import type { AppConfig } from './app-config.js';

/** Opens a client to REDIS_URL with these options. */
export type RedisConnector = (options: RedisOptions) => Redis;

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
  return (options) => new Redis(url, options);
}
