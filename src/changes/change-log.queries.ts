import { selectRows, type SqlExecutor } from '../database/sql.js';
import type { ChangeAction, ChangePosition, ChangeType } from './change-types.js';

export interface ChangeLogRow {
  record_type: ChangeType;
  record_id: string;
  action: ChangeAction;
  changed_at: Date;
  xid: string;
  seq: string;
}

export interface ChangeLogSlice {
  /** At most `limit + 1` rows after the position and below the horizon, oldest first: one more says there are more. */
  readonly rows: ChangeLogRow[];
}

/**
 * The position below which the enterprise's log is final: no transaction that can still commit
 * will write an entry of this enterprise there (change_log_horizon, migration
 * TenantsNeverWait). Only transactions that have announced themselves as writers of this
 * enterprise's entries hold it back: a read-only transaction, a writer of other tables, of
 * other enterprises or of another database does not.
 *
 * Read it in a statement of its own, before the snapshot the log is read in (never as the
 * first statement of that snapshot's transaction): a transaction that ended before the horizon
 * was taken must be visible to the read.
 */
export async function readHorizon(db: SqlExecutor, enterpriseId: string): Promise<ChangePosition> {
  const [row] = await selectRows<{ xid: string; seq: string }>(
    db,
    `SELECT change_log_epoch()::text AS xid, change_log_horizon($1)::text AS seq`,
    [enterpriseId],
  );
  if (!row) throw new Error('change_log_horizon returned no row');
  return { xid: BigInt(row.xid), seq: BigInt(row.seq) };
}

// Qualified names in ORDER BY: a bare `seq` would sort by the text column of the same name.
const SLICE_SQL = `
  SELECT c.record_type, c.record_id, c.action, c.changed_at, c.changed_xid::text AS xid, c.seq::text AS seq
    FROM change_log c
   WHERE c.enterprise_id = $1
     AND (c.changed_xid, c.seq) > ($2::text::xid8, $3::bigint)
     AND (c.changed_xid, c.seq) < ($4::text::xid8, $5::bigint)
     AND c.record_type = ANY($6::text[])
   ORDER BY c.changed_xid, c.seq
   LIMIT $7`;

/** The entries after `after` and below `horizon` (from readHorizon, taken before this read's snapshot). */
export async function readChangeLog(
  db: SqlExecutor,
  enterpriseId: string,
  after: ChangePosition,
  horizon: ChangePosition,
  types: readonly ChangeType[],
  limit: number,
): Promise<ChangeLogSlice> {
  const rows = await selectRows<ChangeLogRow>(db, SLICE_SQL, [
    enterpriseId,
    after.xid.toString(),
    after.seq.toString(),
    horizon.xid.toString(),
    horizon.seq.toString(),
    types,
    limit + 1,
  ]);
  return { rows };
}

export function positionOf(row: ChangeLogRow): ChangePosition {
  return { xid: BigInt(row.xid), seq: BigInt(row.seq) };
}

export function comparePositions(a: ChangePosition, b: ChangePosition): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  if (a.seq !== b.seq) return a.seq < b.seq ? -1 : 1;
  return 0;
}
