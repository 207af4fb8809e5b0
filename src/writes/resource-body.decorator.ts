import { createParamDecorator, ForbiddenException, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** A write's request body with the enterprise of the header (which the record is written to). */
export interface RawResourceBody {
  readonly body: unknown;
  readonly enterpriseId: string;
}

/**
 * The raw body and header enterprise, for the route's input pipe to validate:
 * `@ResourceBody(SomeInputPipe) changes`.
 */
export const ResourceBody = createParamDecorator((_: unknown, context: ExecutionContext): RawResourceBody => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  if (!request.enterpriseId) throw new ForbiddenException();
  return { body: request.body, enterpriseId: request.enterpriseId };
});
