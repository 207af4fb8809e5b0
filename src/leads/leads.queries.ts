import { selectRows, type SqlExecutor } from '../database/sql.js';
import { LEAD_RECORD_COLUMNS, type LeadRow } from './lead.presenter.js';

/** A lead's record columns by id, for the service and for the benchmark's raw baseline alike. */
export async function findLeadRow(db: SqlExecutor, id: string): Promise<LeadRow | undefined> {
  const [row] = await selectRows<LeadRow>(db, `SELECT ${LEAD_RECORD_COLUMNS} FROM leads WHERE id = $1`, [id]);
  return row;
}
