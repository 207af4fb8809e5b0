import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JsonText } from '../database/json-text.js';
import { FieldCipher } from '../crypto/field-cipher.js';
import type { SqlExecutor } from '../database/sql.js';
import { loadChangedRecords } from './change-records.js';
import type { ChangeLogRow } from './change-log.queries.js';
import type { ChangeType } from './change-types.js';

/** Records by type then id, as their retrieve answers them. */
export type RecordsByType = Map<ChangeType, Map<string, unknown>>;

/** What a kept value costs the heap, roughly: a slot per property, a string's characters. */
function estimatedBytes(value: unknown): number {
  if (typeof value === 'string') return 16 + value.length;
  if (value instanceof JsonText) return 48 + value.text.length;
  if (value === null || typeof value !== 'object') return 8;
  let bytes = 32;
  if (Array.isArray(value)) {
    for (const item of value) bytes += 8 + estimatedBytes(item);
    return bytes;
  }
  for (const key in value) bytes += 16 + estimatedBytes((value as Record<string, unknown>)[key]);
  return bytes;
}

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
 * Bounded by an estimate of the heap it holds (`RECORD_CACHE_MB`, least recently used leave
 * first); 0 turns it off and every batch is read from its rows.
 */
@Injectable()
export class PresentedChanges {
  private readonly kept: LRUCache<string, object> | undefined;

  constructor(
    private readonly cipher: FieldCipher,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const maxSize = config.recordCacheMegabytes * 1024 * 1024;
    this.kept =
      maxSize > 0
        ? new LRUCache<string, object>({
            maxSize,
            sizeCalculation: (record, key) => key.length + estimatedBytes(record),
          })
        : undefined;
  }

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
      if (this.kept) {
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
        const key = this.kept && keys.get(`${type} ${id}`);
        if (key && typeof record === 'object' && record !== null) this.kept?.set(key, record);
      }
    }
    return found;
  }

  /** Records kept now. */
  get size(): number {
    return this.kept?.size ?? 0;
  }
}
