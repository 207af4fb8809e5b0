import type { RateLimitStore, WindowState } from './rate-limit-store.js';

interface Window {
  hits: number;
  resetAt: number;
}

const SWEEP_EVERY_MS = 10_000;

/**
 * In-process windows. Every window lasts the same time and a key is re-inserted when its window
 * restarts, so the Map is in expiry order: a sweep drops expired windows from the front until
 * it meets a live one. Memory is bounded by the keys seen in the last window; there is no
 * timer per key (the stock store's fault), only one unref'd sweep.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  hit(key: string, limit: number, windowMs: number, now: number): Promise<WindowState> {
    return Promise.resolve(this.hitNow(key, limit, windowMs, now));
  }

  hitNow(key: string, limit: number, windowMs: number, now: number): WindowState {
    if (now - this.lastSweep >= SWEEP_EVERY_MS) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      this.windows.delete(key);
      window = { hits: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    if (window.hits >= limit) return { allowed: false, hits: window.hits, resetAt: window.resetAt };
    window.hits += 1;
    return { allowed: true, hits: window.hits, resetAt: window.resetAt };
  }

  get size(): number {
    return this.windows.size;
  }

  sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (window.resetAt > now) break;
      this.windows.delete(key);
    }
  }
}
