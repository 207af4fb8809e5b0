import { resourceOfType } from '../resources/tenant-resources.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import type { ChangeType } from './change-types.js';

/**
 * The version of an enterprise's records of one type: moves on every committed change of any. It
 * is kept on the type's row-count row, named after the resource's path (migration ChangeVersions).
 */
export async function typeVersion(db: SqlExecutor, enterpriseId: string, type: ChangeType): Promise<string> {
  const [row] = await selectRows<{ version: string }>(
    db,
    `SELECT version::text AS version FROM tenant_row_counts WHERE enterprise_id = $1 AND table_name = $2`,
    [enterpriseId, resourceOfType(type).path],
  );
  return row?.version ?? '0';
}

/**
 * The version of one record of the enterprise (its change-log entry's sequence number, new on
 * every change of it or of a row inside it); undefined when it is not the enterprise's.
 */
export async function recordVersion(
  db: SqlExecutor,
  enterpriseId: string,
  type: ChangeType,
  id: string,
): Promise<string | undefined> {
  const [row] = await selectRows<{ seq: string }>(
    db,
    `SELECT seq::text AS seq FROM change_log
      WHERE enterprise_id = $1 AND record_type = $2 AND record_id = $3 AND action = 'upserted'`,
    [enterpriseId, type, id],
  );
  return row?.seq;
}
