import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LoggerOptions } from 'pino';
import type { LogLevel } from '../../config/app-config.js';
import { pathOf } from '../http/request-path.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Fields that never reach a log line, wherever a log call puts them. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-signprovidera-signature"]',
  'req.headers["x-signproviderb-signature-1"]',
  'req.headers["x-signproviderb-signature-2"]',
  'req.headers["x-signproviderb-signature-3"]',
  'res.headers["set-cookie"]',
  // Node's clientError carries the raw request bytes (headers included) on `rawPacket`.
  'err.rawPacket',
  '*.password',
  '*.access_token',
];

/** A request id from `X-Request-Id` when it is a plain token, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Options of the one pino logger: Fastify's own, which Nest's Logger also writes to. */
export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Whatever logs a request or a reply (ours, or Fastify itself), only these fields are kept;
    // the query string is dropped: nothing there is needed to trace a request.
    serializers: {
      // `ip` is Fastify's client address: the socket's, or X-Forwarded-For's with TRUST_PROXY.
      req: (req: { id?: unknown; method?: unknown; url?: unknown; ip?: unknown }) => ({
        id: req.id,
        method: req.method,
        url: typeof req.url === 'string' ? pathOf(req.url) : undefined,
        remoteAddress: typeof req.ip === 'string' ? req.ip : undefined,
      }),
      res: (res: { statusCode?: unknown }) => ({ statusCode: res.statusCode }),
    },
  };
}
