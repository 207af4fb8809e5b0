import { selectRows, type SqlExecutor } from './sql.js';

/**
 * A tenant table named by a resource descriptor (never by request input), listed a page at a
 * time and indexed on (enterprise_id, created_at DESC, id DESC).
 */
export type PagedTable = string;

/** The list order: newest first, ties broken by id so pages are stable. */
export const NEWEST_FIRST = 'created_at DESC, id DESC';

/** The list order for a query whose rows come from `alias`. */
export const newestFirst = (alias: string): string => `${alias}.created_at DESC, ${alias}.id DESC`;

/** One page of a tenant's records and how many the tenant has in all. */
export interface Page<T> {
  readonly records: T[];
  readonly total: number;
}

/**
 * How many rows of `table` belong to the enterprise (a list's `meta.total`) and the version of
 * its records there (a list's ETag), in one statement: the folded base row plus the deltas the
 * writers have committed since (migration TenantsNeverWait). The fold keeps the deltas few, so
 * this reads one primary-key row and a short index range, never the rows themselves.
 */
export async function countForEnterprise(
  executor: SqlExecutor,
  table: PagedTable,
  enterpriseId: string,
): Promise<{ total: number; version: string }> {
  const [row] = await selectRows<{ total: number; version: string }>(executor, COUNT_AND_VERSION_SQL, [
    enterpriseId,
    table,
  ]);
  return row ?? { total: 0, version: '0' };
}

const COUNT_AND_VERSION_SQL = `
  SELECT (coalesce(b.row_count, 0) + coalesce(d.row_delta, 0))::int AS total,
         (coalesce(b.version, 0) + d.changes)::text AS version
    FROM (SELECT sum(row_delta) AS row_delta, count(*) AS changes FROM tenant_count_deltas
           WHERE enterprise_id = $1 AND table_name = $2) d
    LEFT JOIN tenant_row_counts b ON b.enterprise_id = $1 AND b.table_name = $2`;

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
 * when the page is past the end (an empty page).
 */
export function planPage(
  page: { readonly limit: number; readonly offset: number },
  total: number,
): PagePlan | undefined {
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

/** A list read by a filter of its own (not a descriptor's table): what `selectPage` reads. */
export interface FilteredList {
  /** `FROM ... WHERE ...`, its parameters numbered from $1. */
  readonly from: string;
  readonly parameters: readonly unknown[];
  readonly columns: string;
  readonly orderBy: string;
}

/**
 * One page of a filtered list and how many rows the filter matches: a count and a page read by
 * the same `FROM ... WHERE`, so the two always agree. For small per-enterprise lists (tokens,
 * memberships, the audit trail), not for the descriptors' tables, whose counts are kept.
 */
export async function selectPage<Row>(
  db: SqlExecutor,
  list: FilteredList,
  page: { readonly limit: number; readonly offset: number },
): Promise<{ rows: Row[]; total: number }> {
  const next = list.parameters.length + 1;
  const [count] = await selectRows<{ total: number }>(db, `SELECT count(*)::int AS total ${list.from}`, [
    ...list.parameters,
  ]);
  const rows = await selectRows<Row>(
    db,
    `SELECT ${list.columns} ${list.from} ORDER BY ${list.orderBy} LIMIT $${next} OFFSET $${next + 1}`,
    [...list.parameters, page.limit, page.offset],
  );
  return { rows, total: count?.total ?? 0 };
}
