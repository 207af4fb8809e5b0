import type { LoggerService } from '@nestjs/common';
import type { FastifyBaseLogger } from 'fastify';

const STACK_TRACE = /\n\s+at /;

type PinoLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Nest's `Logger` written to Fastify's pino logger, so the framework's lines and ours share one
 * JSON stream. Nest calls `level(message, ...params, context)`; our code logs pino's way,
 * `logger.warn({fields}, 'text')`, which arrives as `({fields}, 'text', context)`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: FastifyBaseLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: PinoLevel, message: unknown, params: unknown[]): void {
    const rest = [...params];
    // The last string is the context, unless it is a stack trace (`Logger.error(err, err.stack)`).
    const last = rest.at(-1);
    const context = typeof last === 'string' && !STACK_TRACE.test(last) ? (rest.pop() as string) : undefined;
    const fields: Record<string, unknown> =
      message instanceof Error ? { err: message } : isRecord(message) ? { ...message } : {};
    if (context !== undefined) fields.context = context;
    let text = typeof message === 'string' ? message : undefined;
    if (text === undefined && typeof rest[0] === 'string') text = rest.shift() as string;
    // Nest's own error lines pass a stack trace before the context.
    if (level === 'error' && typeof rest[0] === 'string') fields.stack = rest[0];
    this.pino[level](fields, text);
  }
}
