import { Inject, Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { JsonText } from '../database/json-text.js';

/** What a kept value costs the heap, roughly: a slot per property, a string's characters. */
export function estimatedBytes(value: unknown): number {
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

/**
 * Presented records kept under their change: the change feed's and the webhook rounds' records
 * under their entry's position, the retrieves' under the record's version. Every change to what a
 * record shows (its row, its nested rows, the records it embeds) gives it a new change in the same
 * transaction, so a record found under the change a reader has just read is the current one for
 * that reader, never a stale one. Records are returned as they were kept: readers never change
 * them (the v1 casing step builds new objects).
 *
 * One budget for all (`RECORD_CACHE_MB`, an estimate of the heap held, least recently used leave
 * first); 0 turns it off and every record is presented from its rows.
 */
@Injectable()
export class RecordCache {
  private readonly kept: LRUCache<string, object> | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const maxSize = config.recordCacheMegabytes * 1024 * 1024;
    this.kept =
      maxSize > 0
        ? new LRUCache<string, object>({
            maxSize,
            sizeCalculation: (record, key) => key.length + estimatedBytes(record),
          })
        : undefined;
  }

  /** Whether records are kept at all. */
  get enabled(): boolean {
    return this.kept !== undefined;
  }

  get(key: string): object | undefined {
    return this.kept?.get(key);
  }

  set(key: string, record: unknown): void {
    if (typeof record === 'object' && record !== null) this.kept?.set(key, record);
  }

  /** Records kept now. */
  get size(): number {
    return this.kept?.size ?? 0;
  }
}
