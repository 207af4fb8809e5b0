import { HttpException, HttpStatus, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { ErrorMessages } from '../http/error-messages.js';
import { RateLimitStorage } from './rate-limit.storage.js';
import { SKIP_RATE_LIMIT } from './skip-rate-limit.decorator.js';

const WINDOW_MS = 60_000;

/**
 * Step 2 of R9: one budget per user across all routes, per client IP without a valid token
 * (the token resolver runs first), with the headers R22 names.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly storage: RateLimitStorage,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(SKIP_RATE_LIMIT, [context.getHandler(), context.getClass()])) {
      return true;
    }
    const http = context.switchToHttp();
    const req = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const limit = this.config.rateLimitPerMinute;
    const key = req.user ? `user:${req.user.id}` : `ip:${req.ip}`;
    const record = await this.storage.increment(key, WINDOW_MS, limit);

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
