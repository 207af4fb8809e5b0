import type { FastifyRequest } from 'fastify';

const BEARER_SCHEME = /^Bearer$/i;

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 section 2.1: scheme
 * case-insensitive, one space, the token). Anything else (no header, another scheme, extra
 * words) is no token; tokens in a query string or body are not read (they end up in logs).
 */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const parts = header.split(' ');
  if (parts.length !== 2) return undefined;
  const [scheme, token] = parts as [string, string];
  return BEARER_SCHEME.test(scheme) && token !== '' ? token : undefined;
}
