import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RepeatedWarnings } from '../logging/repeated-warnings.js';
import { pruneAuditEvents } from './audit-trail.js';

/** At most this often per process, after an audited action. */
const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Keeps the audit trail to AUDIT_RETENTION_DAYS: older entries are removed, a batch per
 * statement, when the process starts and then at most once an hour after an audited action. No
 * timer: an idle process sends nothing.
 */
@Injectable()
export class AuditRetention implements OnApplicationBootstrap {
  private readonly warnings = new RepeatedWarnings(new Logger(AuditRetention.name));
  private lastPrune = 0;
  private pruning: Promise<number> | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.afterAudit();
  }

  /** Starts a prune (in the background) when the last one is an hour old. */
  afterAudit(now = Date.now()): void {
    if (this.pruning !== undefined || now - this.lastPrune < PRUNE_INTERVAL_MS) return;
    this.lastPrune = now;
    void this.prune();
  }

  /** Removes what is past retention; how many entries went. */
  prune(batch?: number): Promise<number> {
    this.pruning ??= pruneAuditEvents(this.dataSource, this.config.auditRetentionDays, batch)
      .catch((error: unknown) => {
        this.warnings.warn('Old audit events could not be removed', error);
        return 0;
      })
      .finally(() => (this.pruning = undefined));
    return this.pruning;
  }
}
