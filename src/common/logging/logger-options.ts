import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { LogLevel } from '../../config/app-config.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Headers and fields that never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-signprovidera-signature"]',
  'req.headers["x-signproviderb-signature-1"]',
  'req.headers["x-signproviderb-signature-2"]',
  'req.headers["x-signproviderb-signature-3"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.access_token',
];

/** A request id from `X-Request-Id` when it is a plain token, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

export function loggerOptions(level: LogLevel): Params {
  return {
    pinoHttp: {
      level,
      genReqId: requestId,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Query strings are dropped: nothing there is needed to trace a request.
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          url: req.url.split('?')[0],
        }),
      },
      autoLogging: { ignore: (req) => req.url === '/health' },
    },
  };
}
