import { createParamDecorator, ForbiddenException, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ReadScope } from '../../database/replicas/write-positions.js';

/**
 * Who a read is for: the request's user in the header's enterprise (membership proven by the
 * access guard). Reads of a user who wrote in that enterprise lately wait for that write
 * (ReadRouter); the enterprise is the one CurrentEnterprise gives.
 */
export const ReadingAs = createParamDecorator((_: unknown, context: ExecutionContext): ReadScope => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  const enterpriseId = request.enterpriseId;
  const userId = request.user?.id;
  if (!enterpriseId || !userId) throw new ForbiddenException();
  return { userId, enterpriseId };
});
