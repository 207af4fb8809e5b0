import { Global, Module } from '@nestjs/common';
import { ThrottlerModule } from './throttler.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { ApiThrottlerGuard } from './api-throttler.guard.js';
import { Clock } from './clock.js';
import { RateLimitStorage } from './rate-limit.storage.js';

/** A fixed window of 60 seconds per key. */
const WINDOW_MS = 60_000;

/** The windows' storage: in-process, or Redis shared by every instance when REDIS_URL is set. */
@Module({
  providers: [Clock, RateLimitStorage],
  exports: [Clock, RateLimitStorage],
})
class RateLimitStorageModule {}

/** The rate limit through `@nestjs/throttler`: RATE_LIMIT_PER_MINUTE per fixed 60-second window. */
@Global()
@Module({
  imports: [
    RateLimitStorageModule,
    ThrottlerModule.forRootAsync({
      imports: [RateLimitStorageModule],
      inject: [APP_CONFIG, RateLimitStorage],
      useFactory: (config: AppConfig, storage: RateLimitStorage) => ({
        throttlers: [{ ttl: WINDOW_MS, limit: config.rateLimitPerMinute }],
        storage,
      }),
    }),
  ],
  providers: [ApiThrottlerGuard],
  exports: [RateLimitStorageModule, ApiThrottlerGuard],
})
export class RateLimitModule {}
