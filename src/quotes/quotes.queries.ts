import { findApplicationsByIds } from '../applications/applications.queries.js';
import type { SqlExecutor } from '../database/sql.js';
import { presentQuote, type QuoteRecord, type QuoteRow } from './quote.presenter.js';
import { columnsOf } from '../database/entity-columns.js';
import { Quote } from './quote.entity.js';

export const QUOTE_COLUMNS = columnsOf(Quote, ['id', 'enterpriseId', 'applicationId', 'createdAt', 'updatedAt']);

/** Quotes with their applications embedded, one query for all the applications. */
export async function presentQuotesWithApplications(
  db: SqlExecutor,
  rows: readonly QuoteRow[],
  enterpriseId: string,
): Promise<QuoteRecord[]> {
  const ids = rows.flatMap((row) => (row.application_id === null ? [] : [row.application_id]));
  const applications = await findApplicationsByIds(db, ids, enterpriseId);
  return rows.map((row) =>
    presentQuote(row, row.application_id === null ? null : (applications.get(row.application_id) ?? null)),
  );
}
