import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { API_SECURITY_HEADERS } from '../security/security-headers.js';
import { REQUEST_ID_HEADER } from './request-id-header.js';

/** The texts of the answers Node's HTTP parser makes the service give (docs/api-guide.md#errors). */
export const ClientErrorMessages = {
  headersTooLarge: 'The request headers are larger than 16 KiB.',
  malformedRequest: 'The request is not valid HTTP (a header name or value holds a character it may not).',
  requestTimeout: 'The request did not arrive in time.',
} as const;

interface ClientError extends Error {
  readonly code?: string;
}

function answerFor(error: ClientError): { status: number; message: string } {
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: ClientErrorMessages.headersTooLarge };
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: ClientErrorMessages.requestTimeout };
  return { status: 400, message: ClientErrorMessages.malformedRequest };
}

/**
 * Node's HTTP server answers a request its parser refuses (headers over `maxHeaderSize`, a CR, LF
 * or NUL in a header, a request that took too long) on the socket itself, before Fastify sees a
 * request: no hook runs. This is Fastify's `clientErrorHandler`, writing the raw answer with the
 * headers every other error answer has (a new `X-Request-Id`, the security headers, no caching)
 * and a `{"message": ...}` body, then closing the connection as Node does. No rate-limit headers:
 * the request was never read, so it was not counted.
 */
export function answerClientError(error: ClientError, socket: Socket): void {
  // A reset connection, or one already gone: nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, message } = answerFor(error);
    const body = JSON.stringify({ message });
    const headers: Record<string, string> = {
      ...API_SECURITY_HEADERS,
      'cache-control': 'no-store',
      [REQUEST_ID_HEADER]: randomUUID(),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head.join('')}\r\n${body}`);
  }
  socket.destroy(error);
}
