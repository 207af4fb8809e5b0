import { GoneException, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { PoolReader } from '../database/pool-reader.js';
import { selectRows } from '../database/sql.js';
import { ChangeCursorCodec } from './change-cursor.js';
import { ChangeFeedMessages, ChangeFeedQueryException, type ChangeFeedQuery } from './change-feed-query.js';
import { readHorizon } from './change-log.queries.js';
import { readChangeSlice } from './change-slice.js';
import type { ChangeEntry, ChangeType } from './change-types.js';
import { PresentedChanges } from './presented-changes.js';

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
    private readonly reader: PoolReader,
    private readonly records: PresentedChanges,
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

  /** One page of the enterprise's changes after the query's position, with the cursor after it. */
  async page(enterpriseId: string, query: ChangeFeedQuery): Promise<ChangeFeedPage> {
    if (query.unknownCursorKey !== undefined) await this.refuseUnknownKey(query.unknownCursorKey);
    const slice = await readChangeSlice(this.reader, this.records, enterpriseId, query.after, query.types, query.limit);
    return {
      entries: slice.entries.map(({ entry }) => entry),
      nextCursor: this.cursors.encode(slice.next, enterpriseId, query.types),
      hasMore: slice.hasMore,
    };
  }

  /** A cursor for the changes of these types made from now on. */
  async cursorNow(enterpriseId: string, types: readonly ChangeType[]): Promise<string> {
    return this.cursors.encode(await readHorizon(this.reader, enterpriseId), enterpriseId, types);
  }

  /** 410 for a cursor of a key this service once used and has retired; 400 for any other. */
  private async refuseUnknownKey(keyId: string): Promise<never> {
    const known = await selectRows(this.dataSource, `SELECT 1 FROM cursor_keys WHERE key_id = $1`, [keyId]);
    if (known.length > 0) throw new GoneException({ message: ChangeFeedMessages.retiredCursor });
    throw new ChangeFeedQueryException({ cursor: [ChangeFeedMessages.invalidCursor] });
  }
}
