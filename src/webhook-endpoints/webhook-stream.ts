import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { comparePositions, positionOf, readChangeLog, readHorizon } from '../changes/change-log.queries.js';
import { loadChangedRecords } from '../changes/change-records.js';
import { CHANGE_TYPES, type ChangeEntry, type ChangePosition, type ChangeType } from '../changes/change-types.js';

/** A feed entry of an endpoint's stream, with its position in the change log. */
export interface StreamEntry {
  readonly entry: ChangeEntry;
  readonly position: ChangePosition;
}

export interface StreamSlice {
  readonly entries: StreamEntry[];
  /** Where the stream stands once every entry of the slice is delivered. */
  readonly next: ChangePosition;
  readonly hasMore: boolean;
}

/** The types an endpoint receives: all of them when it names none. */
export function typesOf(types: readonly string[]): ChangeType[] {
  return types.length === 0 ? [...CHANGE_TYPES] : CHANGE_TYPES.filter((type) => types.includes(type));
}

/**
 * The next entries of an enterprise's change log after `after`, exactly as the change feed hands
 * them out: the feed's own queries (so its order and its horizon: an entry is sent only once no
 * transaction that could still write an entry of this enterprise before it is running), its records loaded by the
 * same presenters in the same repeatable-read snapshot, a removed record as `record: null`. A
 * record changed many times is one entry at its latest change, which is how a receiver that was
 * down gets each record's latest state once.
 */
export async function readStream(
  dataSource: DataSource,
  cipher: FieldCipher,
  enterpriseId: string,
  after: ChangePosition,
  types: readonly ChangeType[],
  limit: number,
): Promise<StreamSlice> {
  // As the feed does: the horizon first, in a statement of its own, then one snapshot.
  const horizon = await readHorizon(dataSource, enterpriseId);
  return dataSource.transaction('REPEATABLE READ', async (manager) => {
    const slice = await readChangeLog(manager, enterpriseId, after, horizon, types, limit);
    const hasMore = slice.rows.length > limit;
    const rows = slice.rows.slice(0, limit);
    const idsByType = new Map<ChangeType, string[]>();
    for (const row of rows) {
      if (row.action !== 'upserted') continue;
      const ids = idsByType.get(row.record_type) ?? [];
      ids.push(row.record_id);
      idsByType.set(row.record_type, ids);
    }
    const records = await loadChangedRecords(manager, cipher, enterpriseId, idsByType);
    const entries = rows.map((row): StreamEntry => {
      const record = row.action === 'upserted' ? records.get(row.record_type)?.get(row.record_id) : undefined;
      return {
        position: positionOf(row),
        entry: {
          type: row.record_type,
          id: row.record_id,
          action: record === undefined ? 'removed' : 'upserted',
          changed_at: row.changed_at.toISOString(),
          record: record ?? null,
        },
      };
    });
    const last = entries.at(-1);
    // As the feed's cursor: with nothing left below the horizon, the stream moves up to it.
    let next = hasMore && last ? last.position : horizon;
    if (comparePositions(next, after) < 0) next = after;
    return { entries, next, hasMore };
  });
}

/**
 * The `webhook-id` of an entry for an endpoint: the same on every retry and in every process (a
 * receiver drops the copies it has seen), a new one when the record changes again or the
 * endpoint is replayed (`generation`).
 */
export function webhookIdOf(endpointId: string, generation: number, entry: StreamEntry): string {
  const key = `${endpointId}:${generation}:${entry.entry.type}:${entry.entry.id}:${entry.position.xid}:${entry.position.seq}`;
  return `msg_${createHash('sha256').update(key).digest('base64url').slice(0, 27)}`;
}

/** What an endpoint receives for an entry: the event type, its time and the feed entry itself. */
export function eventOf(entry: ChangeEntry): { type: string; timestamp: string; data: ChangeEntry } {
  return { type: `${entry.type}.${entry.action}`, timestamp: entry.changed_at, data: entry };
}
