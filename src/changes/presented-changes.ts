import { Injectable } from '@nestjs/common';
import { FieldCipher } from '../crypto/field-cipher.js';
import { RecordCache } from '../resources/record-cache.js';
import type { SqlExecutor } from '../database/sql.js';
import { loadChangedRecords } from './change-records.js';
import type { ChangeLogRow } from './change-log.queries.js';
import type { ChangeType } from './change-types.js';

/** Records by type then id, as their retrieve answers them. */
export type RecordsByType = Map<ChangeType, Map<string, unknown>>;

function recordsOf(found: RecordsByType, type: ChangeType): Map<string, unknown> {
  let ofType = found.get(type);
  if (!ofType) found.set(type, (ofType = new Map<string, unknown>()));
  return ofType;
}

/**
 * The records of change-log entries, presented once per change and shared by every reader of
 * that change: each consumer of the change feed and each webhook endpoint of an enterprise reads
 * the same entries, and would otherwise read and present the same rows again.
 *
 * A record is kept under its entry's position. Every change to what a record shows (its own row,
 * its nested rows, the records it embeds) moves its entry to a new position in the same
 * transaction: that is how the feed learns of it. So a snapshot that sees the entry at a position
 * sees the record exactly as it was presented under it, and a kept record is only ever the
 * current one for the position it is asked for. The records are returned as they were kept:
 * readers never change them (the v1 casing step builds new objects).
 *
 * Kept in the shared record cache (`RECORD_CACHE_MB`); with it off every batch is read from its rows.
 */
@Injectable()
export class PresentedChanges {
  constructor(
    private readonly cipher: FieldCipher,
    private readonly kept: RecordCache,
  ) {}

  /**
   * The records of the upserted entries among `rows`: kept ones as they were kept, the others
   * read in one batch per type (through the resources' presenters) on `db`, and kept. Records not
   * the enterprise's are left out, as a removed one is.
   */
  async load(db: SqlExecutor, enterpriseId: string, rows: readonly ChangeLogRow[]): Promise<RecordsByType> {
    const found: RecordsByType = new Map();
    const missing = new Map<ChangeType, string[]>();
    const keys = new Map<string, string>();
    for (const row of rows) {
      if (row.action !== 'upserted') continue;
      if (this.kept.enabled) {
        const key = `${enterpriseId} ${row.record_type} ${row.record_id} ${row.xid} ${row.seq}`;
        const record = this.kept.get(key);
        if (record !== undefined) {
          recordsOf(found, row.record_type).set(row.record_id, record);
          continue;
        }
        keys.set(`${row.record_type} ${row.record_id}`, key);
      }
      const ids = missing.get(row.record_type);
      if (ids) ids.push(row.record_id);
      else missing.set(row.record_type, [row.record_id]);
    }
    const loaded = await loadChangedRecords(db, this.cipher, enterpriseId, missing);
    for (const [type, records] of loaded) {
      const ofType = recordsOf(found, type);
      for (const [id, record] of records) {
        ofType.set(id, record);
        const key = keys.get(`${type} ${id}`);
        if (key) this.kept.set(key, record);
      }
    }
    return found;
  }

  /** Records kept now (the shared cache's, retrieves' included). */
  get size(): number {
    return this.kept.size;
  }
}
