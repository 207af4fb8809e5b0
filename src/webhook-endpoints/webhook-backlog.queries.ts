import { selectRows, type SqlExecutor } from '../database/sql.js';

export interface EndpointLag {
  id: string;
  enterprise_id: string;
  url: string;
  enabled: boolean;
  /** Age of the endpoint's oldest change not delivered yet; 0 when it is caught up. */
  lag_seconds: number;
}

/**
 * Every endpoint (optionally of one enterprise) with its lag: the age of the first change-log
 * entry after its position that its types select (the head of its stream). Oldest first.
 */
export async function endpointLags(db: SqlExecutor, enterpriseId?: string): Promise<EndpointLag[]> {
  const rows = await selectRows<EndpointLag>(
    db,
    `SELECT w.id::text AS id, w.enterprise_id::text AS enterprise_id, w.url, w.enabled,
            greatest(coalesce(extract(epoch FROM (now() - h.changed_at)), 0), 0)::float8 AS lag_seconds
       FROM webhook_endpoints w
       LEFT JOIN LATERAL (
            SELECT c.changed_at FROM change_log c
             WHERE c.enterprise_id = w.enterprise_id
               AND (c.changed_xid, c.seq) > (w.cursor_xid::text::xid8, w.cursor_seq)
               AND (cardinality(w.types) = 0 OR c.record_type = ANY (w.types))
             ORDER BY c.changed_xid, c.seq LIMIT 1) h ON true
      WHERE $1::uuid IS NULL OR w.enterprise_id = $1
      ORDER BY w.created_at, w.id`,
    [enterpriseId ?? null],
  );
  return rows;
}
