import { createParamDecorator, UnauthorizedException, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from './authenticated-user.js';

/** The authenticated user of the request (routes that need a token). */
export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): AuthenticatedUser => {
  const user = context.switchToHttp().getRequest<FastifyRequest>().user;
  if (!user) throw new UnauthorizedException();
  return user;
});
