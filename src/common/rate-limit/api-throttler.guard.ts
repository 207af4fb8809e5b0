import { HttpException, HttpStatus, Injectable, type ExecutionContext, type Type } from '@nestjs/common';
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
import { RateLimitStorage, type RateLimitRecord } from './rate-limit.storage.js';
import { RouteMetadataCache } from './route-metadata-cache.js';
import { RouteMemo } from '../http/route-memo.js';

/** One budget per user across all routes; per client IP for a request without a valid token. */
export function rateLimitKey(request: FastifyRequest): string {
  return request.user ? `user:${request.user.id}` : `ip:${request.ip}`;
}

/** A route's budget under the one throttler, read from its metadata once. */
interface RouteBudget {
  readonly skip: boolean;
  readonly limit: number;
  readonly ttl: number;
}

/**
 * `@nestjs/throttler`'s guard with the API's answers: `X-RateLimit-Limit` and
 * `X-RateLimit-Remaining` on every counted answer, and on a 429 also `Retry-After` (seconds) and
 * `X-RateLimit-Reset` (when the window ends, seconds since the epoch) with the API's message.
 * The access guard counts each request through `count`, after the token is resolved, so the key
 * is the user's when there is one. Routes marked `@SkipThrottle()` are not counted.
 */
@Injectable()
export class ApiThrottlerGuard extends ThrottlerGuard {
  /** Per route; null: the budget depends on the request (the library decides each time). */
  private readonly budgets = new RouteMemo<RouteBudget | null>((handler, controller) =>
    this.readBudget(handler, controller),
  );

  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() private readonly windows: RateLimitStorage,
  ) {
    super(options, windows, new RouteMetadataCache());
  }

  /**
   * Counts the request as the library's `canActivate` would (the module's throttler, the route's
   * `@SkipThrottle()` and `@Throttle()`), with the route's budget read once and, while the
   * in-process windows are the store, without a promise (undefined). The library's loop awaits
   * six times per request; on a kept page under load that cost about a tenth of the CPU
   * (`npm run bench:compare`, docs/decisions/0870).
   */
  count(context: ExecutionContext): Promise<unknown> | undefined {
    const budget = this.budgets.of(context.getHandler(), context.getClass());
    if (budget === null) return this.canActivate(context);
    if (budget.skip) return undefined;
    const http = context.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const record = this.windows.countNow(rateLimitKey(http.getRequest<FastifyRequest>()), budget.ttl, budget.limit);
    if (record instanceof Promise) return record.then((counted) => answerCounted(reply, budget.limit, counted));
    answerCounted(reply, budget.limit, record);
    return undefined;
  }

  protected override async handleRequest({ context, limit, ttl }: ThrottlerRequest): Promise<boolean> {
    const http = context.switchToHttp();
    const record = await this.windows.increment(rateLimitKey(http.getRequest<FastifyRequest>()), ttl, limit);
    answerCounted(http.getResponse<FastifyReply>(), limit, record);
    return true;
  }

  /** Null where the library's own per-request resolution is needed: several throttlers, or values computed per request. */
  private readBudget(handler: object, controller: object): RouteBudget | null {
    const [throttler, ...others] = this.throttlers;
    if (!throttler || others.length > 0) return null;
    if (
      throttler.skipIf ??
      this.commonOptions.skipIf ??
      throttler.ignoreUserAgents ??
      this.commonOptions.ignoreUserAgents
    )
      return null;
    const name = throttler.name ?? 'default';
    const targets: [Type, Type] = [handler as Type, controller as Type];
    const skip = this.reflector.getAllAndOverride<boolean | undefined>(`${THROTTLER_SKIP}${name}`, targets) === true;
    const limit = this.reflector.getAllAndOverride<unknown>(`${THROTTLER_LIMIT}${name}`, targets) ?? throttler.limit;
    const ttl = this.reflector.getAllAndOverride<unknown>(`${THROTTLER_TTL}${name}`, targets) ?? throttler.ttl;
    if (typeof limit !== 'number' || typeof ttl !== 'number') return null;
    return { skip, limit, ttl };
  }
}

/** The answer's rate-limit headers; a refused request ends here with the 429. */
function answerCounted(reply: FastifyReply, limit: number, record: RateLimitRecord): void {
  void reply.header('X-RateLimit-Limit', String(limit));
  void reply.header('X-RateLimit-Remaining', String(Math.max(0, limit - record.totalHits)));
  if (record.isBlocked) {
    const retryAfter = record.timeToBlockExpire;
    void reply.header('Retry-After', String(retryAfter));
    void reply.header('X-RateLimit-Reset', String(Math.floor(record.now / 1000) + retryAfter));
    throw new HttpException({ message: ErrorMessages.tooManyAttempts }, HttpStatus.TOO_MANY_REQUESTS);
  }
}

/** `@nestjs/throttler`'s metadata keys (its decorators' own; the package does not export them), suffixed by a throttler's name. */
const THROTTLER_SKIP = 'THROTTLER:SKIP';
const THROTTLER_LIMIT = 'THROTTLER:LIMIT';
const THROTTLER_TTL = 'THROTTLER:TTL';

/** The metadata `@SkipThrottle()` sets for the one (default) throttler. */
const SKIP_DEFAULT_THROTTLER = `${THROTTLER_SKIP}default`;

/** Whether a route is counted (for the API documents): not when it or its controller skips it. */
export function isRateLimited(reflector: Reflector, targets: Parameters<Reflector['getAllAndOverride']>[1]): boolean {
  return reflector.getAllAndOverride<boolean>(SKIP_DEFAULT_THROTTLER, targets) !== true;
}
