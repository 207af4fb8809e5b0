import { createParamDecorator, ForbiddenException, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { routePath } from '../common/http/request-path.js';

/** What an idempotent write needs to know of its request. */
export interface WriteRequest {
  /** The raw `Idempotency-Key` header, if any. */
  readonly keyHeader: string | string[] | undefined;
  readonly userId: string;
  readonly enterpriseId: string;
  readonly method: string;
  /** The path as the router matched it (no query string, no trailing slash), lower-cased. */
  readonly path: string;
  /** The body as the route reads it: v2's after key normalisation, v1's as parsed. */
  readonly body: unknown;
  readonly reply: FastifyReply;
  /** What is left of the lock bound after the write waited for its place; undefined when it did not wait. */
  readonly lockWaitLeftMs?: number;
}

/** The request of a resource write, for `IdempotentWrites.run` (after the guards: user and enterprise are known). */
export const CurrentWrite = createParamDecorator((_: unknown, context: ExecutionContext): WriteRequest => {
  const http = context.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  if (!request.user) throw new UnauthorizedException();
  if (!request.enterpriseId) throw new ForbiddenException();
  return {
    keyHeader: request.headers['idempotency-key'],
    userId: request.user.id,
    enterpriseId: request.enterpriseId,
    method: request.method,
    path: routePath(request.url).toLowerCase(),
    body: request.body,
    reply: http.getResponse<FastifyReply>(),
    lockWaitLeftMs: request.lockWaitLeftMs,
  };
});
