import type { PageRequest } from '../common/http/pagination.js';
import { selectRows, type SqlExecutor } from './sql.js';

/** Tenant tables listed a page at a time (R7), each indexed on (enterprise_id, created_at DESC, id DESC). */
/** A tenant table named by a resource descriptor (never by request input). */
export type PagedTable = string;

/** The list order of R7: newest first, ties broken by id so pages are stable. */
export const NEWEST_FIRST = 'created_at DESC, id DESC';

/** R7's order for a query whose rows come from `alias`. */
export const newestFirst = (alias: string): string => `${alias}.created_at DESC, ${alias}.id DESC`;

/** One page of a tenant's records and how many the tenant has in all. */
export interface Page<T> {
  readonly records: T[];
  readonly total: number;
}

/**
 * How many rows of `table` belong to the enterprise (the `total` of R7's meta): one primary-key
 * read of the trigger-kept counter (migration TenantRowCounts), not a count of the rows. The
 * same row carries the version of the enterprise's records of that table (a list's ETag).
 */
export async function countForEnterprise(
  executor: SqlExecutor,
  table: PagedTable,
  enterpriseId: string,
): Promise<{ total: number; version: string }> {
  const [row] = await selectRows<{ total: number; version: string }>(
    executor,
    `SELECT row_count::int AS total, version::text AS version FROM tenant_row_counts
      WHERE enterprise_id = $1 AND table_name = $2`,
    [enterpriseId, table],
  );
  return row ?? { total: 0, version: '0' };
}

/** Where a page sits in the index, and from which end it is cheaper to reach. */
export interface PagePlan {
  readonly limit: number;
  readonly offset: number;
  /** False: the page is nearer the oldest end, so it is read oldest first from there. */
  readonly fromNewest: boolean;
}

/**
 * OFFSET walks the index entries it skips, so a page is reached from whichever end of the
 * enterprise's index is nearer: the last of 1,000 pages costs what the first does. Undefined
 * when the page is past the end (an empty page, R7).
 */
export function planPage(page: PageRequest, total: number): PagePlan | undefined {
  if (page.offset >= total) return undefined;
  const limit = Math.min(page.limit, total - page.offset);
  const after = total - page.offset - limit;
  if (page.offset <= after) return { limit, offset: page.offset, fromNewest: true };
  return { limit, offset: after, fromNewest: false };
}

/**
 * The ids of a planned page as a subquery with parameters $1 (enterprise id), $2 (limit) and $3
 * (offset). It reads only the (enterprise_id, created_at, id) index; callers join the rows to it
 * (a deferred join) and sort them with `newestFirst`.
 */
export function pageIdsSql(table: PagedTable, plan: PagePlan): string {
  const order = plan.fromNewest ? 'created_at DESC, id DESC' : 'created_at ASC, id ASC';
  return `SELECT id FROM ${table} WHERE enterprise_id = $1 ORDER BY ${order} LIMIT $2 OFFSET $3`;
}

export function pageParams(enterpriseId: string, plan: PagePlan): unknown[] {
  return [enterpriseId, plan.limit, plan.offset];
}
