import type { Redis } from 'ioredis';
import type { RateLimitStore, WindowState } from './rate-limit-store.js';

/**
 * Atomic in Redis: one script reads the window, restarts it when over, counts the request only
 * when under the limit. Time comes from the caller, so every instance and the tests agree on
 * one clock; the key also expires in Redis a little after its window, so nothing piles up.
 */
const HIT_SCRIPT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local hits = tonumber(redis.call('HGET', KEYS[1], 'hits') or '0')
local reset_at = tonumber(redis.call('HGET', KEYS[1], 'reset_at') or '0')
if reset_at <= now then
  hits = 0
  reset_at = now + window
  redis.call('HSET', KEYS[1], 'hits', 0, 'reset_at', reset_at)
  redis.call('PEXPIRE', KEYS[1], window + 1000)
end
if hits >= limit then
  return {0, hits, reset_at}
end
hits = redis.call('HINCRBY', KEYS[1], 'hits', 1)
return {1, hits, reset_at}
`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'finance-intake:rate-limit:',
  ) {}

  async hit(key: string, limit: number, windowMs: number, now: number): Promise<WindowState> {
    const result = (await this.redis.eval(HIT_SCRIPT, 1, `${this.prefix}${key}`, now, limit, windowMs)) as [
      number,
      number,
      number,
    ];
    return { allowed: result[0] === 1, hits: Number(result[1]), resetAt: Number(result[2]) };
  }
}
