import type { LoggerService } from '@nestjs/common';
import type { FastifyBaseLogger } from 'fastify';

const STACK_TRACE = /\n\s+at /;

type PinoLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Nest's start-up chatter (modules initialised, every controller and route mapped, "starting",
 * "started"): a hundred lines per process, useful when debugging the routing, noise otherwise.
 * Logged at debug; the process's own "listening" line and banner stay at info.
 */
const START_UP_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** The global prefix and the controller paths it does not apply to (`setGlobalPrefix`'s exclude). */
export interface UnprefixedPaths {
  readonly prefix: string;
  readonly paths: readonly string[];
}

/**
 * Nest's `Logger` written to Fastify's pino logger, so the framework's lines and ours share one
 * JSON stream. Nest calls `level(message, ...params, context)`; our code logs pino's way,
 * `logger.warn({fields}, 'text')`, which arrives as `({fields}, 'text', context)`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(
    private readonly pino: FastifyBaseLogger,
    private readonly unprefixed?: UnprefixedPaths,
  ) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = params.at(-1);
    if (typeof context === 'string' && START_UP_CONTEXTS.has(context)) {
      this.write('debug', this.controllerLine(context, message), params);
      return;
    }
    this.write('info', message, params);
  }

  /**
   * Nest names a controller with the global prefix even when its routes are excluded from it
   * (`HealthController {/api/health}` for `/health`): the line names the path the routes have.
   */
  private controllerLine(context: string, message: unknown): unknown {
    if (context !== 'RoutesResolver' || typeof message !== 'string' || !this.unprefixed) return message;
    const { prefix, paths } = this.unprefixed;
    for (const path of paths) {
      const prefixed = `{/${prefix}/${path}}`;
      if (message.includes(prefixed)) return message.replace(prefixed, `{/${path}}`);
    }
    return message;
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
