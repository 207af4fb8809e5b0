import { GoneException, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FieldCipher } from '../crypto/field-cipher.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { oneQueryAtATime, selectRows } from '../database/sql.js';
import { ChangeCursorCodec } from './change-cursor.js';
import { ChangeFeedMessages, ChangeFeedQueryException, type ChangeFeedQuery } from './change-feed-query.js';
import { comparePositions, positionOf, readChangeLog, readHorizon } from './change-log.queries.js';
import { loadChangedRecords } from './change-records.js';
import type { ChangeEntry, ChangeType } from './change-types.js';

export interface ChangeFeedPage {
  readonly entries: ChangeEntry[];
  readonly nextCursor: string;
  readonly hasMore: boolean;
}

@Injectable()
export class ChangesService implements OnApplicationBootstrap {
  readonly cursors: ChangeCursorCodec;
  private readonly logger = new Logger(ChangesService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cipher: FieldCipher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.cursors = new ChangeCursorCodec(config.encryptionKeys);
  }

  /**
   * The ids of the keys cursors are written and read with, kept so that a cursor of a key
   * retired later is answered 410 (start again) rather than 400 (forged).
   */
  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.dataSource.query(
        `INSERT INTO cursor_keys (key_id) SELECT unnest($1::text[]) ON CONFLICT (key_id) DO NOTHING`,
        [this.cursors.keyIds],
      );
    } catch (error) {
      this.logger.warn({ err: error }, 'the ids of the cursor keys could not be recorded');
    }
  }

  /**
   * One page of the enterprise's changes after the query's position. The horizon is taken
   * first, in a statement of its own; then the log and the records are read in one
   * repeatable-read snapshot, so each record is its state as of that snapshot; a fixed number
   * of queries whatever the limit (one batch per type).
   */
  async page(enterpriseId: string, query: ChangeFeedQuery): Promise<ChangeFeedPage> {
    if (query.unknownCursorKey !== undefined) await this.refuseUnknownKey(query.unknownCursorKey);
    const horizon = await readHorizon(this.dataSource, enterpriseId);
    return this.dataSource.transaction('REPEATABLE READ', async (manager) => {
      const slice = await readChangeLog(manager, enterpriseId, query.after, horizon, query.types, query.limit);
      const hasMore = slice.rows.length > query.limit;
      const rows = slice.rows.slice(0, query.limit);
      const idsByType = new Map<ChangeType, string[]>();
      for (const row of rows) {
        if (row.action !== 'upserted') continue;
        const ids = idsByType.get(row.record_type) ?? [];
        ids.push(row.record_id);
        idsByType.set(row.record_type, ids);
      }
      // One transaction, one client: the records' nested rows are read one query at a time.
      const records = await loadChangedRecords(oneQueryAtATime(manager), this.cipher, enterpriseId, idsByType);
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
      let next = hasMore && last ? positionOf(last) : horizon;
      if (comparePositions(next, query.after) < 0) next = query.after;
      return { entries, nextCursor: this.cursors.encode(next, enterpriseId, query.types), hasMore };
    });
  }

  /** A cursor for the changes of these types made from now on. */
  async cursorNow(enterpriseId: string, types: readonly ChangeType[]): Promise<string> {
    return this.cursors.encode(await readHorizon(this.dataSource, enterpriseId), enterpriseId, types);
  }

  /** 410 for a cursor of a key this service once used and has retired; 400 for any other. */
  private async refuseUnknownKey(keyId: string): Promise<never> {
    const known = await selectRows(this.dataSource, `SELECT 1 FROM cursor_keys WHERE key_id = $1`, [keyId]);
    if (known.length > 0) throw new GoneException({ message: ChangeFeedMessages.retiredCursor });
    throw new ChangeFeedQueryException({ cursor: [ChangeFeedMessages.invalidCursor] });
  }
}
