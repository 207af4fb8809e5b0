import type { Logger } from 'typeorm';

/**
 * TypeORM's logger with nothing printed. With logging off, TypeORM's default logger still prints
 * a failed migration's message on stdout, a plain-text line among the service's JSON lines (and
 * one per retry, now that a migration gives way to a serving release's locks and tries again).
 * The error itself is what the migration runner throws or retries, and the service and the CLI
 * tell it in their own words. The methods stay, for the tests that count statements by watching
 * `logQuery`.
 */
export class SilentTypeOrmLogger implements Logger {
  logQuery(): void {}
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}
