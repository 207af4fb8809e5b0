import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { RedisRateLimitStore } from '../../src/common/rate-limit/redis-rate-limit.store.js';

const T0 = 1_000_000;

describe('Redis rate-limit windows (REDIS_URL)', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const store = new RedisRateLimitStore(redis, `test:${randomUUID()}:`);
  afterAll(async () => {
    await redis.quit();
  });

  it('counts up to the limit, refuses without counting, and restarts after the window', async () => {
    expect(await store.hit('k', 2, 60_000, T0)).toEqual({ allowed: true, hits: 1, resetAt: T0 + 60_000 });
    expect(await store.hit('k', 2, 60_000, T0 + 10)).toEqual({ allowed: true, hits: 2, resetAt: T0 + 60_000 });
    expect(await store.hit('k', 2, 60_000, T0 + 20)).toEqual({ allowed: false, hits: 2, resetAt: T0 + 60_000 });
    expect(await store.hit('k', 2, 60_000, T0 + 60_000)).toEqual({ allowed: true, hits: 1, resetAt: T0 + 120_000 });
  });

  it('is atomic under 200 concurrent hits', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, () => store.hit('burst', 60, 60_000, T0)));
    expect(results.filter((r) => r.allowed)).toHaveLength(60);
    expect(Math.max(...results.map((r) => r.hits))).toBe(60);
  });

  it('lets Redis expire the key shortly after its window', async () => {
    const prefix = `test:${randomUUID()}:`;
    await new RedisRateLimitStore(redis, prefix).hit('ttl', 5, 60_000, T0);
    const ttl = await redis.pttl(`${prefix}ttl`);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(61_000);
  });
});
