import { Injectable, Logger } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { PoolReader } from './pool-reader.js';
import { INVALID_SQL_STATEMENT_NAME, sqlStateOf } from './sql-state.js';

/** `kept`, `lost`, or `unknown` when the connection could not tell (a pooler with one server connection). */
export type PreparedStatementsVerdict = 'kept' | 'lost' | 'unknown';

/** How long the second run may wait for a server connection before the check gives up. */
const SECOND_RUN_WAIT_MS = 2_000;

export const PREPARED_STATEMENTS_LOST =
  'The database connections do not keep prepared statements between transactions (a pooler in ' +
  'transaction mode: PgBouncer before 1.21, or without max_prepared_statements); start the service ' +
  'with DATABASE_PREPARED_STATEMENTS=false.';

/**
 * Whether the request path's named statements survive between transactions. Behind a pooler in
 * transaction mode that does not keep them, a connection's next transaction may run on another
 * server connection, where its statement was never prepared: every read fails with "prepared
 * statement ... does not exist" while `SELECT 1` still answers. Checked once, by the readiness
 * probe: one connection prepares a statement of its own, a second holds a transaction open (so a
 * pooler must give the first another server connection), and the first runs its statement again.
 */
@Injectable()
export class PreparedStatementsCheck {
  private readonly logger = new Logger('Database');
  private verdict: PreparedStatementsVerdict | undefined;
  private running: Promise<PreparedStatementsVerdict | undefined> | undefined;

  constructor(private readonly reader: PoolReader) {}

  /** The verdict, found on the first call that reaches the database; undefined while it does not answer. */
  async result(): Promise<PreparedStatementsVerdict | undefined> {
    if (this.verdict !== undefined) return this.verdict;
    if (!this.reader.preparesStatements) return (this.verdict = 'kept');
    this.running ??= this.check()
      .then((verdict) => {
        this.verdict = verdict;
        if (verdict === 'lost') this.logger.error(PREPARED_STATEMENTS_LOST);
        return verdict;
      })
      .catch(() => undefined)
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async check(): Promise<PreparedStatementsVerdict> {
    const pool = this.reader.pool;
    if (!pool || pool.options.max < 2) return 'unknown';
    const statement = {
      // Its own name, so no other connection of a pooler has it prepared already.
      name: `readiness_${process.pid}_${Date.now().toString(36)}`,
      text: 'SELECT 1 AS prepared',
      values: [],
    };
    const first = await pool.connect();
    let firstBroken = false;
    try {
      await first.query(statement);
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT 1');
        const again = first.query(statement).then(
          () => 'kept' as const,
          (error: unknown) => (sqlStateOf(error) === INVALID_SQL_STATEMENT_NAME ? ('lost' as const) : error),
        );
        const verdict = await Promise.race([again, delay(SECOND_RUN_WAIT_MS).then(() => 'unknown' as const)]);
        if (verdict === 'unknown') {
          // A pooler with one server connection: the run waits for the holder's; let it finish.
          await holder.query('ROLLBACK');
          firstBroken = (await Promise.race([again, delay(SECOND_RUN_WAIT_MS)])) === undefined;
          return 'unknown';
        }
        if (verdict !== 'kept' && verdict !== 'lost') throw verdict;
        return verdict;
      } finally {
        await holder.query('ROLLBACK').catch(() => undefined);
        holder.release();
      }
    } catch (error) {
      firstBroken = true;
      throw error;
    } finally {
      release(first, firstBroken);
    }
  }
}

function release(client: PoolClient, broken: boolean): void {
  client.release(broken ? new Error('readiness check connection discarded') : undefined);
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
