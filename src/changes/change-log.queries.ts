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
  /** At most `limit + 1` rows after the position, oldest first: one more says there are more. */
  readonly rows: ChangeLogRow[];
  /** Every transaction below this id has finished: the position no entry can appear before. */
  readonly horizon: ChangePosition;
}

/**
 * The snapshot's xmin is the oldest transaction still running. Entries of transactions below it
 * are final (committed and visible, or rolled back and gone); an entry of any transaction that
 * can still commit, including one open right now, carries an id at or above it. Handing out only
 * entries below the xmin therefore never moves a cursor past a change that could commit later.
 */
const SLICE_SQL = `
  WITH snapshot AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
  SELECT s.xmin::text AS horizon, c.record_type, c.record_id, c.action, c.changed_at,
         c.changed_xid::text AS xid, c.seq::text AS seq
    FROM snapshot s
    LEFT JOIN LATERAL (
      SELECT record_type, record_id, action, changed_at, changed_xid, seq
        FROM change_log
       WHERE enterprise_id = $1
         AND (changed_xid, seq) > ($2::text::xid8, $3::bigint)
         AND changed_xid < s.xmin
         AND record_type = ANY($4::text[])
       ORDER BY changed_xid, seq
       LIMIT $5
    ) c ON true`;

export async function readChangeLog(
  db: SqlExecutor,
  enterpriseId: string,
  after: ChangePosition,
  types: readonly ChangeType[],
  limit: number,
): Promise<ChangeLogSlice> {
  const rows = await selectRows<ChangeLogRow & { horizon: string; record_id: string | null }>(db, SLICE_SQL, [
    enterpriseId,
    after.xid.toString(),
    after.seq.toString(),
    types,
    limit + 1,
  ]);
  const horizon = { xid: BigInt(rows[0]?.horizon ?? '0'), seq: 0n };
  return { rows: rows.filter((row) => row.record_id !== null), horizon };
}

/** The position now: every change committed so far lies before it. */
export async function currentHorizon(db: SqlExecutor): Promise<ChangePosition> {
  const [row] = await selectRows<{ xmin: string }>(db, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
  return { xid: BigInt(row?.xmin ?? '0'), seq: 0n };
}

export function positionOf(row: ChangeLogRow): ChangePosition {
  return { xid: BigInt(row.xid), seq: BigInt(row.seq) };
}

export function comparePositions(a: ChangePosition, b: ChangePosition): number {
  if (a.xid !== b.xid) return a.xid < b.xid ? -1 : 1;
  if (a.seq !== b.seq) return a.seq < b.seq ? -1 : 1;
  return 0;
}
