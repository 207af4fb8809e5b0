import { selectRows, type SqlExecutor } from './sql.js';
import { uuidArray } from './uuid-array.js';

/**
 * Runs one query for the child rows of many owners and groups them by owner, keeping the
 * query's order. The SQL selects the owner's id as `owner_id` and takes the owner ids as `$1`
 * (a uuid array). No query is made for no owners.
 */
export async function selectOwnedRows<T extends object>(
  executor: SqlExecutor,
  sql: string,
  ownerIds: readonly string[],
): Promise<Map<string, T[]>> {
  const grouped = new Map<string, T[]>();
  if (ownerIds.length === 0) return grouped;
  const rows = await selectRows<T & { owner_id: string }>(executor, sql, [uuidArray(ownerIds)]);
  for (const row of rows) {
    const list = grouped.get(row.owner_id);
    if (list) list.push(row);
    else grouped.set(row.owner_id, [row]);
  }
  return grouped;
}
