import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { oneQueryAtATime, type TransactionalExecutor } from '../database/sql.js';
import { comparePositions, positionOf, readChangeLog, readHorizon } from './change-log.queries.js';
import type { ChangeEntry, ChangePosition, ChangeType } from './change-types.js';
import type { PresentedChanges } from './presented-changes.js';

/** An entry of the change log with its record, and its position in the log. */
export interface ChangeSliceEntry {
  readonly entry: ChangeEntry;
  readonly position: ChangePosition;
}

export interface ChangeSlice {
  readonly entries: ChangeSliceEntry[];
  /** Where a reader stands once it has every entry of the slice. */
  readonly next: ChangePosition;
  readonly hasMore: boolean;
}

/**
 * The next entries of an enterprise's change log after `after`, with their records: what a
 * change feed page and a webhook endpoint's round both hand out. The horizon is taken first, in
 * a statement of its own (an entry is handed out only once no transaction that could still write
 * an entry of this enterprise before it is running); then the log and the records are read in
 * one repeatable-read snapshot, so each record is its state as of that snapshot, a removed one
 * `record: null`. A fixed number of queries whatever the limit (one batch per type at most).
 */
export async function readChangeSlice(
  reader: TransactionalExecutor,
  records: PresentedChanges,
  enterpriseId: string,
  after: ChangePosition,
  types: readonly ChangeType[],
  limit: number,
): Promise<ChangeSlice> {
  const horizon = await readHorizon(reader, enterpriseId);
  return reader.transaction('REPEATABLE READ', async (transaction) => {
    // One transaction, one client: the records' nested rows are read one query at a time.
    const db = oneQueryAtATime(transaction);
    const slice = await readChangeLog(db, enterpriseId, after, horizon, types, limit);
    const hasMore = slice.rows.length > limit;
    const rows = slice.rows.slice(0, limit);
    const loaded = await records.load(db, enterpriseId, rows);
    const entries = rows.map((row): ChangeSliceEntry => {
      const record = row.action === 'upserted' ? loaded.get(row.record_type)?.get(row.record_id) : undefined;
      return {
        position: positionOf(row),
        entry: {
          type: row.record_type,
          id: row.record_id,
          action: record === undefined ? 'removed' : 'upserted',
          changed_at: isoTimestamp(row.changed_at),
          record: record ?? null,
        },
      };
    });
    const last = entries.at(-1);
    // With nothing left below the horizon, the reader moves up to it: every transaction below
    // it has finished and its entries of these types were all handed out.
    let next = hasMore && last ? last.position : horizon;
    if (comparePositions(next, after) < 0) next = after;
    return { entries, next, hasMore };
  });
}
