/** The part of a logger a warning needs (Nest's Logger, with pino behind it). */
export interface WarningLogger {
  warn(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}

/** How often a warning that keeps happening is written again, with the count of the meantime. */
export const REPEAT_INTERVAL_MS = 60_000;

/** Kinds kept before the ones past their interval are dropped. */
const MAX_KINDS = 100;

interface Seen {
  since: number;
  suppressed: number;
}

/** The error in a few words (its code or class and message): no stack, nothing of a request. */
export function errorSummary(error: unknown): { type: string; code?: string; message: string } {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message };
}

/**
 * Warnings of a loop that runs every few seconds (a worker's poll while the database is down):
 * the first of a kind (its message and the error's code or message) is written at once, the
 * same again only once per interval, saying how many were left out; the stack is written at
 * debug level only. A warning of another kind is written at once.
 */
export class RepeatedWarnings {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly logger: WarningLogger,
    private readonly intervalMs = REPEAT_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  warn(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const summary = errorSummary(error);
    const kind = `${message}\u0000${summary.code ?? summary.message}`;
    const at = this.now();
    const seen = this.seen.get(kind);
    if (seen && at - seen.since < this.intervalMs) {
      seen.suppressed += 1;
      return;
    }
    // Kinds seen longer ago than the interval are forgotten (messages may hold ids: no growth).
    if (!seen && this.seen.size >= MAX_KINDS) {
      for (const [key, old] of this.seen) if (at - old.since >= this.intervalMs) this.seen.delete(key);
    }
    const repeated =
      seen && seen.suppressed > 0 ? { repeated: seen.suppressed, repeated_within_ms: at - seen.since } : {};
    this.seen.set(kind, { since: at, suppressed: 0 });
    this.logger.warn({ ...fields, error: summary, ...repeated }, message);
    this.logger.debug({ ...fields, err: error }, message);
  }
}
