import { describe, expect, it } from '@jest/globals';
import { MemoryRateLimitStore } from '../../src/common/rate-limit/memory-rate-limit.store.js';

const T0 = 1_000_000;

describe('in-process rate-limit windows', () => {
  it('counts up to the limit, refuses without counting, and restarts after the window', () => {
    const store = new MemoryRateLimitStore();
    expect(store.hitNow('k', 2, 60_000, T0)).toEqual({ allowed: true, hits: 1, resetAt: T0 + 60_000 });
    expect(store.hitNow('k', 2, 60_000, T0 + 10)).toEqual({ allowed: true, hits: 2, resetAt: T0 + 60_000 });
    expect(store.hitNow('k', 2, 60_000, T0 + 20)).toEqual({ allowed: false, hits: 2, resetAt: T0 + 60_000 });
    expect(store.hitNow('k', 2, 60_000, T0 + 59_999)).toEqual({ allowed: false, hits: 2, resetAt: T0 + 60_000 });
    expect(store.hitNow('k', 2, 60_000, T0 + 60_000)).toEqual({ allowed: true, hits: 1, resetAt: T0 + 120_000 });
  });

  it('keeps separate windows per key', () => {
    const store = new MemoryRateLimitStore();
    store.hitNow('a', 1, 60_000, T0);
    expect(store.hitNow('a', 1, 60_000, T0).allowed).toBe(false);
    expect(store.hitNow('b', 1, 60_000, T0).allowed).toBe(true);
  });

  it('drops expired windows, so memory holds only the keys of the last window', () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 1_000; i++) store.hitNow(`old-${i}`, 60, 60_000, T0 + i);
    store.hitNow('new', 60, 60_000, T0 + 30_000);
    expect(store.size).toBe(1_001);
    store.hitNow('later', 60, 60_000, T0 + 61_000);
    // The sweep ran (10 s since the last one) and kept only the windows still open.
    expect(store.size).toBe(2);
  });

  it('keeps expiry order when a key restarts its window', () => {
    const store = new MemoryRateLimitStore();
    store.hitNow('a', 60, 60_000, T0);
    store.hitNow('b', 60, 60_000, T0 + 1_000);
    store.hitNow('a', 60, 60_000, T0 + 60_000); // a restarts: now the newest
    store.sweep(T0 + 61_000); // b expired, a did not
    expect(store.size).toBe(1);
    expect(store.hitNow('a', 60, 60_000, T0 + 61_000).hits).toBe(2);
  });
});
