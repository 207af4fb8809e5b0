import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { RepeatedWarnings } from '../logging/repeated-warnings.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { nextIdleWait } from './idle-wait.js';
import { selectRows, type SqlExecutor } from './sql.js';

/** Deltas folded per statement: one short transaction each, whatever the backlog. */
const FOLD_BATCH = 5_000;
export const FOLD_INTERVAL_MS = 1_000;
/**
 * The longest wait of an idle process (no deltas found): a statement every 5 minutes, not every
 * second. Deltas written elsewhere (another process, the CLI's import) wait for it at most; the
 * counts are exact with any number of deltas, the fold only keeps their run short.
 */
export const IDLE_FOLD_INTERVAL_MS = 300_000;

/**
 * Folds all committed row-count deltas into the base rows, a batch per transaction; returns how
 * many it folded. Another process folding at the same moment makes this one return 0 at once.
 */
export async function foldTenantCounts(db: SqlExecutor): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await selectRows<{ folded: number }>(db, `SELECT tenant_counts_fold($1) AS folded`, [FOLD_BATCH]);
    const folded = row?.folded ?? 0;
    total += folded;
    if (folded < FOLD_BATCH) return total;
  }
}

/**
 * The wait before the next fold: a second after a fold that found deltas; after one that found
 * none, twice the last wait, up to IDLE_FOLD_INTERVAL_MS.
 */
export function nextFoldWait(lastWaitMs: number, folded: number): number {
  return nextIdleWait(lastWaitMs, folded > 0, FOLD_INTERVAL_MS, IDLE_FOLD_INTERVAL_MS);
}

/**
 * Every process of the service folds the row-count deltas the writers insert (see
 * migration TenantsNeverWait) once a second while there are some, so a list's count reads one
 * base row and a short run of deltas; an idle process folds less and less often (see
 * nextFoldWait), and a write it answers brings it back to every second. Folding is an
 * optimisation, never a condition of exactness: the counts are exact with any number of deltas
 * left, so a fold that fails, is killed midway or comes late loses nothing.
 */
@Injectable()
export class CountFolder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly warnings = new RepeatedWarnings(new Logger(CountFolder.name));
  private timer: NodeJS.Timeout | undefined;
  private folding: Promise<unknown> | undefined;
  private waitMs = FOLD_INTERVAL_MS;
  private stopped = false;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.folding;
  }

  /** A write was answered: deltas may be waiting, so the next fold comes within a second. */
  wake(): void {
    if (this.waitMs === FOLD_INTERVAL_MS) return;
    this.waitMs = FOLD_INTERVAL_MS;
    if (this.folding === undefined) this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fold(), this.waitMs);
    this.timer.unref();
  }

  private fold(): void {
    if (this.folding !== undefined) return;
    if (!this.dataSource.isInitialized) {
      this.schedule();
      return;
    }
    this.folding = foldTenantCounts(this.dataSource)
      .then((folded) => {
        this.waitMs = nextFoldWait(this.waitMs, folded);
      })
      .catch((error: unknown) => {
        this.waitMs = FOLD_INTERVAL_MS;
        this.warnings.warn('row-count deltas could not be folded; retrying every second', error);
      })
      .finally(() => {
        this.folding = undefined;
        this.schedule();
      });
  }
}
