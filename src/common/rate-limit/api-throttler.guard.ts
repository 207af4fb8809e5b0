import { HttpException, HttpStatus, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  type ThrottlerModuleOptions,
  type ThrottlerRequest,
} from './throttler.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorMessages } from '../http/error-messages.js';
import { RateLimitStorage } from './rate-limit.storage.js';
import { RouteMetadataCache } from './route-metadata-cache.js';

/** One budget per user across all routes; per client IP for a request without a valid token. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.user ? `user:${request.user.id}` : `ip:${request.ip}`;
}

/**
 * `@nestjs/throttler`'s guard with the API's answers: `X-RateLimit-Limit` and
 * `X-RateLimit-Remaining` on every counted answer, and on a 429 also `Retry-After` (seconds) and
 * `X-RateLimit-Reset` (when the window ends, seconds since the epoch) with the API's message.
 * The access guard runs it after the token is resolved, so the key is the user's when there is
 * one. Routes marked `@SkipThrottle()` are not counted.
 */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly windows: RateLimitStorage,
  ) {
    super(options, windows, new RouteMetadataCache());
  }

  protected override async handleRequest({ context, limit, ttl }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const record = await this.windows.increment(rateLimitKey(request), ttl, limit);

    void reply.header('X-RateLimit-Limit', String(limit));
    void reply.header('X-RateLimit-Remaining', String(Math.max(0, limit - record.totalHits)));
    if (record.isBlocked) {
      const retryAfter = record.timeToBlockExpire;
      void reply.header('Retry-After', String(retryAfter));
      void reply.header('X-RateLimit-Reset', String(Math.floor(record.now / 1000) + retryAfter));
      throw new HttpException({ message: ErrorMessages.tooManyAttempts }, HttpStatus.TOO_MANY_REQUESTS);
    }
    return true;
  }
}

/** The metadata `@SkipThrottle()` sets for the one (default) throttler. */
const SKIP_DEFAULT_THROTTLER = 'THROTTLER:SKIPdefault';

/** Whether a route is counted (for the API documents): not when it or its controller skips it. */
export function isRateLimited(reflector: Reflector, targets: Parameters<Reflector['getAllAndOverride']>[1]): boolean {
  return reflector.getAllAndOverride<boolean>(SKIP_DEFAULT_THROTTLER, targets) !== true;
}
