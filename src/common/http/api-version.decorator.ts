import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { apiVersionOf, type ApiVersion } from './api-version.js';

/** The API version of the request, for the few rules that differ between versions. */
export const RequestApiVersion = createParamDecorator(
  (_: unknown, context: ExecutionContext): ApiVersion =>
    apiVersionOf(context.switchToHttp().getRequest<FastifyRequest>().url) ?? 'v2',
);
