import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from './throttler.js';
import type { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { REDIS_CONNECTOR, type RedisConnector } from '../../config/redis-connector.js';
import { Clock } from './clock.js';
import { MemoryRateLimitStore } from './memory-rate-limit.store.js';
import type { WindowState } from './rate-limit-store.js';
import { RedisRateLimitStore } from './redis-rate-limit.store.js';

/** One hit's outcome for a key, as the throttler reads it, plus when the window ends and now. */
export interface RateLimitRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
  resetAt: number;
  now: number;
}

export type RedisState = 'up' | 'down' | 'not configured';

/** A window's state after a hit, as the throttler reads it. */
function recordOf(state: WindowState, now: number): RateLimitRecord {
  const secondsLeft = Math.max(1, Math.ceil((state.resetAt - now) / 1000));
  return {
    totalHits: state.hits,
    timeToExpire: secondsLeft,
    isBlocked: !state.allowed,
    timeToBlockExpire: state.allowed ? 0 : secondsLeft,
    resetAt: state.resetAt,
    now,
  };
}

const FAULT_LOG_INTERVAL_MS = 30_000;

/**
 * Rate-limit windows: Redis when REDIS_URL is set, so instances share one
 * budget; while Redis is unreachable each instance falls back to its in-process windows (the
 * limit still holds per instance), logs the fault at most every 30 s, and goes back to Redis
 * by itself once the client reconnects.
 */
@Injectable()
export class RateLimitStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly memory = new MemoryRateLimitStore();
  private readonly redis: Redis | undefined;
  private readonly shared: RedisRateLimitStore | undefined;
  private lastFaultLog = 0;
  private degraded = false;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly clock: Clock,
    @Inject(REDIS_CONNECTOR) connect: RedisConnector | null,
  ) {
    if (connect) {
      this.redis = connect();
      this.redis.on('error', (error: Error) => this.fault(error.message));
      this.redis.on('ready', () => this.recovered());
      this.shared = new RedisRateLimitStore(this.redis, config.redisKeyPrefix);
    }
  }

  get redisState(): RedisState {
    if (!this.redis) return 'not configured';
    return this.redis.status === 'ready' && !this.degraded ? 'up' : 'down';
  }

  /** Counts a hit for `key` (a refused one is not counted); windows are fixed, so no block duration. */
  async increment(key: string, ttl: number, limit: number): Promise<RateLimitRecord> {
    const now = this.clock.now();
    let state = undefined;
    if (this.sharing) {
      try {
        state = await this.shared?.hit(key, limit, ttl, now);
        if (this.degraded) this.recovered();
      } catch (error) {
        this.fault(error instanceof Error ? error.message : String(error));
      }
    }
    return recordOf(state ?? this.memory.hitNow(key, limit, ttl, now), now);
  }

  /**
   * `increment`, answered without a promise while the in-process windows are the store (no
   * Redis, or Redis unreachable): the request path then counts without awaiting anything.
   */
  countNow(key: string, ttl: number, limit: number): RateLimitRecord | Promise<RateLimitRecord> {
    if (this.sharing) return this.increment(key, ttl, limit);
    const now = this.clock.now();
    return recordOf(this.memory.hitNow(key, limit, ttl, now), now);
  }

  /** Whether hits go to Redis now. */
  private get sharing(): boolean {
    return this.shared !== undefined && this.redis?.status === 'ready';
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.redis && this.redis.status !== 'end') {
      this.redis.removeAllListeners('error');
      this.redis.on('error', () => undefined);
      await this.redis.quit().catch(() => this.redis?.disconnect());
    }
  }

  private fault(reason: string): void {
    this.degraded = true;
    const now = Date.now();
    if (now - this.lastFaultLog < FAULT_LOG_INTERVAL_MS) return;
    this.lastFaultLog = now;
    this.logger.warn(`Redis is unreachable (${reason}); rate limits are per instance until it is back.`);
  }

  private recovered(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.lastFaultLog = 0;
    this.logger.log('Redis is back; rate limits are shared again.');
  }
}
