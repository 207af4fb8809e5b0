/**
 * Memory of the in-process rate-limit store under a long run with many distinct keys (issue 7).
 * Simulates 30 minutes of traffic from 5,000 new client IPs a second against the store the
 * service uses, on a simulated clock, and prints heap and window counts once a simulated minute.
 *
 *   npm run build && node --expose-gc dist/bench/rate-limit-memory.js
 */
import { MemoryRateLimitStore } from '../src/common/rate-limit/memory-rate-limit.store.js';

const KEYS_PER_SECOND = 5_000;
const MINUTES = 30;
const WINDOW_MS = 60_000;
const LIMIT = 60;

const store = new MemoryRateLimitStore();
const gc = (globalThis as { gc?: () => void }).gc;
let now = Date.parse('2026-01-01T00:00:00Z');
let key = 0;
const rows: string[] = ['minute  windows   heapUsed(MiB)'];
const start = process.hrtime.bigint();
for (let minute = 1; minute <= MINUTES; minute++) {
  for (let second = 0; second < 60; second++) {
    for (let i = 0; i < KEYS_PER_SECOND; i++) {
      store.hitNow(`ip:${key++}`, LIMIT, WINDOW_MS, now + i / 5);
      // Every tenth request is a returning client, to exercise counted hits too.
      if (i % 10 === 0) store.hitNow(`ip:${key - 100}`, LIMIT, WINDOW_MS, now + i / 5);
    }
    now += 1_000;
  }
  gc?.();
  const heap = process.memoryUsage().heapUsed / 1024 / 1024;
  rows.push(`${String(minute).padStart(6)}  ${String(store.size).padStart(7)}   ${heap.toFixed(1).padStart(8)}`);
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(rows.join('\n'));
console.log(
  `${(key * 1.1).toLocaleString('en')} hits on ${key.toLocaleString('en')} distinct keys in ${seconds.toFixed(1)} s`,
);
