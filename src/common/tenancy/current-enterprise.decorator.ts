import { createParamDecorator, ForbiddenException, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** The enterprise id of the request's header, once the access guard proved membership. */
export const CurrentEnterprise = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  const enterpriseId = context.switchToHttp().getRequest<FastifyRequest>().enterpriseId;
  if (!enterpriseId) throw new ForbiddenException();
  return enterpriseId;
});
