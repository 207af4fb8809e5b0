import { HttpException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { ErrorMessages } from '../http/error-messages.js';
import { RateLimitStorage } from './rate-limit.storage.js';

const WINDOW_MS = 60_000;

/**
 * One budget per user across all routes, per client IP without a valid token (so the token is
 * resolved first), with the X-RateLimit-* headers on every answer and Retry-After on a 429.
 */
@Injectable()
export class RateLimiter {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: RateLimitStorage,
  ) {}

  /** Counts the request; throws the 429 when its budget is spent. */
  async count(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const limit = this.config.rateLimitPerMinute;
    const key = request.user ? `user:${request.user.id}` : `ip:${request.ip}`;
    const record = await this.storage.increment(key, WINDOW_MS, limit);

    void reply.header('X-RateLimit-Limit', String(limit));
    void reply.header('X-RateLimit-Remaining', String(Math.max(0, limit - record.totalHits)));
    if (record.isBlocked) {
      const retryAfter = record.timeToBlockExpire;
      void reply.header('Retry-After', String(retryAfter));
      void reply.header('X-RateLimit-Reset', String(Math.floor(record.now / 1000) + retryAfter));
      throw new HttpException({ message: ErrorMessages.tooManyAttempts }, HttpStatus.TOO_MANY_REQUESTS);
    }
  }
}
