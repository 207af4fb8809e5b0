import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FieldCipher } from '../common/crypto/field-cipher.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ChangeCursorCodec } from './change-cursor.js';
import type { ChangeFeedQuery } from './change-feed-query.js';
import { comparePositions, currentHorizon, positionOf, readChangeLog } from './change-log.queries.js';
import { loadChangedRecords } from './change-records.js';
import type { ChangeEntry, ChangeType } from './change-types.js';

export interface ChangeFeedPage {
  readonly entries: ChangeEntry[];
  readonly nextCursor: string;
  readonly hasMore: boolean;
}

@Injectable()
export class ChangesService {
  readonly cursors: ChangeCursorCodec;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cursors = new ChangeCursorCodec(config.encryptionKeys);
  }

  /**
   * One page of the enterprise's changes after the query's position. The log and the records
   * are read in one repeatable-read snapshot, so each record is its state as of that snapshot;
   * a fixed number of queries whatever the limit (one batch per type).
   */
  async page(enterpriseId: string, query: ChangeFeedQuery): Promise<ChangeFeedPage> {
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const slice = await readChangeLog(manager, enterpriseId, query.after, query.types, query.limit);
      const hasMore = slice.rows.length > query.limit;
      const rows = slice.rows.slice(0, query.limit);
      const idsByType = new Map<ChangeType, string[]>();
      for (const row of rows) {
        if (row.action !== 'upserted') continue;
        const ids = idsByType.get(row.record_type) ?? [];
        ids.push(row.record_id);
        idsByType.set(row.record_type, ids);
      }
      const records = await loadChangedRecords(manager, this.cipher, enterpriseId, idsByType);
      const entries = rows.map((row): ChangeEntry => {
        const record = row.action === 'upserted' ? records.get(row.record_type)?.get(row.record_id) : undefined;
        return {
          type: row.record_type,
          id: row.record_id,
          action: record === undefined ? 'removed' : 'upserted',
          changed_at: row.changed_at.toISOString(),
          record: record ?? null,
        };
      });
      const last = rows.at(-1);
      // With nothing left below the horizon, the cursor moves up to it: every transaction below
      // it has finished and its entries of these types were all handed out.
      let next = hasMore && last ? positionOf(last) : slice.horizon;
      if (comparePositions(next, query.after) < 0) next = query.after;
      return { entries, nextCursor: this.cursors.encode(next, enterpriseId), hasMore };
    });
  }

  /** A cursor for the changes made from now on. */
  async cursorNow(enterpriseId: string): Promise<string> {
    return this.cursors.encode(await currentHorizon(this.dataSource), enterpriseId);
  }
}
