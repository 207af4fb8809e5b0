import { createParamDecorator, ForbiddenException, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** A lead request body with the enterprise of the header, which fills `team`. */
export interface RawLeadBody {
  readonly body: unknown;
  readonly enterpriseId: string;
}

/** The raw body and header enterprise, for a version's lead input pipe to validate. */
export const LeadBody = createParamDecorator((_: unknown, context: ExecutionContext): RawLeadBody => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  if (!request.enterpriseId) throw new ForbiddenException();
  return { body: request.body, enterpriseId: request.enterpriseId };
});

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
