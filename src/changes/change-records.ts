import type { FieldCipher } from '../crypto/field-cipher.js';
import type { SqlExecutor } from '../database/sql.js';
import { recordsByIds } from '../resources/resource-reader.js';
import { resourceOfType } from '../resources/tenant-resources.js';
import type { ChangeType } from './change-types.js';

/**
 * The current records of these ids, by type then id, each as its own retrieve answers it: one
 * batch per type that has any, through the resource's presenter (the same fixed number of
 * queries as a list page, whatever the batch holds). Records not the enterprise's are left out.
 */
export async function loadChangedRecords(
  db: SqlExecutor,
  cipher: FieldCipher,
  enterpriseId: string,
  idsByType: ReadonlyMap<ChangeType, string[]>,
): Promise<Map<ChangeType, Map<string, unknown>>> {
  const loaded = new Map<ChangeType, Map<string, unknown>>();
  for (const [type, ids] of idsByType) {
    if (ids.length === 0) continue;
    const records = await recordsByIds(resourceOfType(type), db, cipher, ids, enterpriseId);
    loaded.set(type, new Map(records.map((record) => [record.id, record])));
  }
  return loaded;
}
