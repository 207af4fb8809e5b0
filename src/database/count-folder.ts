import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { selectRows, type SqlExecutor } from './sql.js';

/** Deltas folded per statement: one short transaction each, whatever the backlog. */
const FOLD_BATCH = 5_000;
export const FOLD_INTERVAL_MS = 1_000;
const FAILURE_LOG_INTERVAL_MS = 60_000;

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
 * Every process of the service folds the row-count deltas the writers insert (see
 * migration TenantsNeverWait) once a second, so a list's count reads one base row and a short
 * run of deltas. Folding is an optimisation, never a condition of exactness: the counts are
 * exact with any number of deltas left, so a fold that fails or is killed midway loses nothing.
 */
@Injectable()
export class CountFolder implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CountFolder.name);
  private timer: NodeJS.Timeout | undefined;
  private folding: Promise<unknown> | undefined;
  private lastFailureLog = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.foldSoon(), FOLD_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.folding;
  }

  private foldSoon(): void {
    if (this.folding !== undefined || !this.dataSource.isInitialized) return;
    this.folding = foldTenantCounts(this.dataSource)
      .catch((error: unknown) => {
        const now = Date.now();
        if (now - this.lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
        this.lastFailureLog = now;
        this.logger.warn({ err: error }, 'row-count deltas could not be folded; retrying every second');
      })
      .finally(() => {
        this.folding = undefined;
      });
  }
}
