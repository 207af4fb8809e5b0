import { ArgumentsHost, Catch, HttpException, HttpStatus, Logger, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../../database/database-unavailable.js';
import { ErrorMessages } from './error-messages.js';
import { EarlyAnswer } from './conditional/early-answer.js';
import { pathOf } from './request-path.js';
import type { RouteRegistry } from './route-registry.js';

export interface ErrorBody {
  message: string;
  [key: string]: unknown;
}

/** Default texts for exceptions thrown without a body of their own. */
const DEFAULT_MESSAGES: Partial<Record<number, string>> = {
  [HttpStatus.UNAUTHORIZED]: ErrorMessages.unauthenticated,
  [HttpStatus.FORBIDDEN]: ErrorMessages.forbidden,
  [HttpStatus.TOO_MANY_REQUESTS]: ErrorMessages.tooManyAttempts,
  [HttpStatus.PAYLOAD_TOO_LARGE]: ErrorMessages.payloadTooLarge,
  [HttpStatus.UNSUPPORTED_MEDIA_TYPE]: ErrorMessages.unsupportedMediaType,
  [HttpStatus.SERVICE_UNAVAILABLE]: ErrorMessages.serviceUnavailable,
};

/** Fastify's own request errors (body parsing happens before Nest sees the request). */
const FASTIFY_ERRORS: Record<string, { status: number; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: ErrorMessages.malformedJson },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: ErrorMessages.malformedJson },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: ErrorMessages.payloadTooLarge },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, message: ErrorMessages.unsupportedMediaType },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, message: ErrorMessages.malformedJson },
  // A QUERY request without a Content-Type (RFC 10008 makes Fastify refuse it).
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: { status: 415, message: ErrorMessages.unsupportedMediaType },
};

/**
 * Another error Fastify raises about the request itself (its code starts with FST_ and it
 * carries a 4xx status): that status, with Fastify's message, which names no internals.
 */
function fastifyClientError(error: unknown): { status: number; message: string } | undefined {
  const { code, statusCode, message } = (error ?? {}) as { code?: unknown; statusCode?: unknown; message?: unknown };
  if (typeof code !== 'string' || !code.startsWith('FST_')) return undefined;
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode > 499) return undefined;
  return { status: statusCode, message: typeof message === 'string' && message !== '' ? message : 'Bad Request' };
}

/** Seconds a client is asked to wait after a 503 while the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** While the database is down every request fails the same way: log it at most this often. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

function fastifyErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The one place error bodies are made: every error answer is JSON with a top-level `message`,
 * and nothing internal (stack, SQL) leaves the process.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private lastUnavailableLog = 0;
  private unavailableSinceLog = 0;

  constructor(private readonly routes: RouteRegistry) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.reply(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /** Also Fastify's error handler, for what fails before Nest routes the request (body parsing). */
  reply(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    if (exception instanceof EarlyAnswer) {
      exception.send(reply);
      return;
    }
    // A tag set before the answer failed describes no error.
    void reply.removeHeader('etag');
    const { status, body, headers } = this.describe(exception, request);
    for (const [name, value] of Object.entries(headers)) void reply.header(name, value);
    void reply.status(status).send(body);
  }

  private describe(
    exception: unknown,
    request: FastifyRequest,
  ): { status: number; body: ErrorBody; headers: Record<string, string> } {
    const path = pathOf(request.url);
    // A path that cannot be percent-decoded names no route.
    if (fastifyErrorCode(exception) === 'FST_ERR_BAD_URL') {
      return { status: 404, body: { message: ErrorMessages.routeNotFound(path) }, headers: {} };
    }
    const known = FASTIFY_ERRORS[fastifyErrorCode(exception) ?? ''] ?? fastifyClientError(exception);
    if (known) return { status: known.status, body: { message: known.message }, headers: {} };
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status === 404 && request.routeOptions.url === undefined) return this.unknownRoute(request.method, path);
      const response = exception.getResponse();
      // Nest's own exceptions carry `statusCode`; ours carry the `{message}` body already.
      // A 503 of ours (an enterprise's bulkhead full) says when to come back, as the database's does.
      const headers: Record<string, string> =
        status === 503 ? { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } : {};
      if (isErrorBody(response) && !('statusCode' in response)) return { status, body: response, headers };
      const message = DEFAULT_MESSAGES[status] ?? (isErrorBody(response) ? response.message : exception.message);
      return { status, body: { message }, headers: {} };
    }
    if (isDatabaseUnavailable(exception)) return this.unavailable(exception, request, path);
    this.logger.error(
      { err: exception, requestId: request.id, method: request.method, path },
      'Unhandled error while serving a request',
    );
    return { status: 500, body: { message: ErrorMessages.serverError }, headers: {} };
  }

  /**
   * The database cannot be reached or cannot serve now: 503 with a message and Retry-After,
   * never the driver's text. Logged once per interval with how many requests it refused.
   */
  private unavailable(
    exception: unknown,
    request: FastifyRequest,
    path: string,
  ): { status: number; body: ErrorBody; headers: Record<string, string> } {
    this.unavailableSinceLog += 1;
    const now = Date.now();
    if (now - this.lastUnavailableLog >= UNAVAILABLE_LOG_INTERVAL_MS) {
      this.logger.warn(
        {
          err: exception,
          requestId: request.id,
          method: request.method,
          path,
          refusedSinceLastLog: this.unavailableSinceLog,
        },
        'The database is unavailable; answering 503',
      );
      this.lastUnavailableLog = now;
      this.unavailableSinceLog = 0;
    }
    return {
      status: 503,
      body: { message: ErrorMessages.serviceUnavailable },
      headers: { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    };
  }

  private unknownRoute(
    method: string,
    path: string,
  ): { status: number; body: ErrorBody; headers: Record<string, string> } {
    const allowed = this.routes.allowedMethods(path);
    if (allowed.length > 0 && !allowed.includes(method)) {
      const route = path.replace(/^\//, '');
      return {
        status: 405,
        body: { message: ErrorMessages.methodNotAllowed(method, route, allowed) },
        headers: { allow: allowed.join(', ') },
      };
    }
    return { status: 404, body: { message: ErrorMessages.routeNotFound(path) }, headers: {} };
  }
}
