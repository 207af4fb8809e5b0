import { pino, type Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';

/**
 * The process's own lines (start-up banner, warnings, failures before or outside Nest), as
 * JSON lines like every other line the service prints. Always at info: they were printed
 * whatever LOG_LEVEL says before, and a start-up failure must never be silent.
 */
export const processLog: Logger = pino({ level: 'info' });

/** Failures go to standard error, as they always did, still one JSON line each. */
const failureLog: Logger = pino({ level: 'info' }, pino.destination({ fd: 2, sync: true }));

/** Node's warnings (deprecations, ...) as JSON lines instead of its own text on stderr. */
export function logProcessWarnings(): void {
  // Node's default printer is the one 'warning' listener installed at boot.
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    processLog.warn({ warning: { name: warning.name, code: warning.code } }, warning.message);
  });
}

/** An error nothing caught ends the process with one JSON line instead of Node's stack dump. */
export function logUncaughtErrors(): void {
  process.on('uncaughtException', (error: unknown) => {
    failureLog.fatal({ err: error }, 'Uncaught exception; stopping.');
    process.exit(1);
  });
  process.on('unhandledRejection', (reason: unknown) => {
    failureLog.fatal({ err: reason }, 'Unhandled promise rejection; stopping.');
    process.exit(1);
  });
}

/** One fatal line on standard error (the primary giving up on its workers, ...). */
export function logFatal(fields: Record<string, unknown>, message: string): void {
  failureLog.fatal(fields, message);
}

/** The one line a failed start prints before the process exits 1. */
export function logStartFailure(error: unknown): void {
  if (error instanceof ConfigError) {
    failureLog.fatal(error.message);
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  failureLog.fatal({ err: error }, `Finance Intake failed to start: ${message}`);
}
