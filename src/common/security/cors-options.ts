import type { NestFastifyApplication } from '@nestjs/platform-fastify';

type CorsOptions = NonNullable<Parameters<NestFastifyApplication['enableCors']>[0]>;

/**
 * CORS when CORS_ORIGINS is set (off otherwise: no `Access-Control-*` header is ever sent, so
 * browsers on other origins cannot read answers). Bearer tokens, no cookies: no credentials.
 */
export function corsOptions(origins: readonly string[]): CorsOptions {
  return {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Accept',
      'X-Enterprise-Id',
      'EnterpriseID',
      'X-Request-Id',
      'Idempotency-Key',
    ],
    exposedHeaders: [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'X-Request-Id',
      'Idempotent-Replayed',
    ],
    credentials: false,
    maxAge: 600,
  };
}
