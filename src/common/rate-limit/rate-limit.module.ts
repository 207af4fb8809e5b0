import { Global, Module } from '@nestjs/common';
import { Clock } from './clock.js';
import { RateLimiter } from './rate-limiter.js';
import { RateLimitStorage } from './rate-limit.storage.js';

/** The rate limit: RATE_LIMIT_PER_MINUTE per fixed 60-second window. */
@Global()
@Module({
  providers: [Clock, RateLimitStorage, RateLimiter],
  exports: [Clock, RateLimitStorage, RateLimiter],
})
export class RateLimitModule {}
