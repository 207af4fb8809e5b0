import { allColumnsOf, columnsOf } from '../database/entity-columns.js';
import { Quote } from '../quotes/quote.entity.js';
import { Application } from './application.entity.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { idsMatch, idsMatchSql } from '../database/ids-match.js';
import { presentApplication, type ApplicationRecord, type ApplicationRow } from './application.presenter.js';

/** The stored columns of an application; the active quote's four are joined in. */
export const APPLICATION_COLUMNS = allColumnsOf(Application);

/** The active quote's fields an application shows. */
const ACTIVE_QUOTE_FIELDS = ['assetType', 'assetDescription', 'financier', 'totalFinanceAmount'] as const;

/**
 * Applications chosen by `selection` (a subquery over `applications` returning APPLICATION_COLUMNS), each
 * with the four fields of its active quote: the most recently created quote flagged active,
 * ties broken by id; nulls without one. One query for any number of applications, served by the
 * partial index quotes_active_by_application_idx. `enterprise` is the statement's placeholder of
 * the enterprise the applications are read for: the quotes are read for it too.
 */
export function withActiveQuote(selection: string, enterprise: string): string {
  return `SELECT ${allColumnsOf(Application, 'a')}, ${columnsOf(Quote, ACTIVE_QUOTE_FIELDS, 'q')}
            FROM (${selection}) a
            LEFT JOIN LATERAL (
              SELECT ${columnsOf(Quote, ACTIVE_QUOTE_FIELDS)}
                FROM quotes
               WHERE application_id = a.id AND enterprise_id = ${enterprise} AND is_active = 1
               ORDER BY created_at DESC, id DESC
               LIMIT 1
            ) q ON true`;
}

/** Applications by id: one (a quote's retrieve) or several (see `idsMatch`). */
const BY_IDS_SQL = {
  one: withActiveQuote(
    `SELECT ${APPLICATION_COLUMNS} FROM applications WHERE ${idsMatchSql('id', 1, true)} AND enterprise_id = $2`,
    '$2',
  ),
  many: withActiveQuote(
    `SELECT ${APPLICATION_COLUMNS} FROM applications WHERE ${idsMatchSql('id', 1, false)} AND enterprise_id = $2`,
    '$2',
  ),
};

/**
 * The enterprise's applications with these ids, in one query (a page of quotes embeds them;
 * the change feed loads a batch). Ids of other enterprises are left out.
 */
export async function findApplicationsByIds(
  db: SqlExecutor,
  ids: readonly string[],
  enterpriseId: string,
): Promise<Map<string, ApplicationRecord>> {
  if (ids.length === 0) return new Map();
  const match = idsMatch([...new Set(ids)]);
  const rows = await selectRows<ApplicationRow>(db, match.one ? BY_IDS_SQL.one : BY_IDS_SQL.many, [
    match.param,
    enterpriseId,
  ]);
  return new Map(rows.map((row) => [row.id, presentApplication(row)]));
}
