import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { IS_PUBLIC } from '../access/public.decorator.js';
import { apiVersionOf } from '../http/api-version.js';
import { BodyTooDeepError, normaliseKeys } from './normalise-keys.js';

/**
 * Stands in for a body that could not be normalised. The 400 is raised where the body is read
 * (validation, the last check), so a disabled write with such a body still answers 403 first.
 */
export class RejectedBody {
  constructor(readonly message: string) {}
}

/**
 * v2 key normalisation in one place: every authenticated v2 request body has its keys snake-cased
 * before any pipe validates it. Interceptors run after the guards (so after authentication and
 * the enterprise check) and before pipes. Login and register are @Public() and keep their
 * bodies; v1 and the unversioned webhooks are never touched.
 */
@Injectable()
export class V2KeyNormaliserInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic || apiVersionOf(request.url) !== 'v2' || request.body === undefined) return next.handle();
    try {
      request.body = normaliseKeys(request.body);
    } catch (error) {
      if (!(error instanceof BodyTooDeepError)) throw error;
      request.body = new RejectedBody(error.message);
    }
    return next.handle();
  }
}
