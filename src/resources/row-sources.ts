import { existsInAnyEnterprise } from '../database/record-elsewhere.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { uuidArray } from '../database/uuid-array.js';
import {
  countForEnterprise,
  newestFirst,
  pageIdsSql,
  pageParams,
  planPage,
  type PagedTable,
} from '../database/tenant-page.js';
import type { PageRequest } from '../common/http/pagination.js';
import type { ChangeType } from '../changes/change-types.js';

/**
 * A record found by id: the enterprise's row (with its version when it was asked for), or a
 * record of another enterprise (403, not 404), whose row only a source that may show it gives.
 */
export type FoundRow<Row> =
  | { readonly inEnterprise: true; readonly row: Row; readonly version?: string }
  | { readonly inEnterprise: false; readonly row?: Row; readonly version?: undefined };

/**
 * Told the version of the enterprise's records of the listed type, read in the same statement as
 * the total and before any row: a conditional GET answers 304 from it (by throwing) without the
 * rows being read.
 */
export type BeforeRows = (listVersion: string) => void;

/** Where a resource's rows come from. Every method is a fixed number of queries. */
export interface RowSource<Row> {
  /** Paged lists with `meta.total`, or one unpaginated list (the enterprise's users). */
  readonly paged: boolean;
  /** The tenant table (with `enterprise_id`) the rows are read from; none for users. */
  readonly table?: PagedTable;
  /** One page (paged) or every row (unpaginated) of the enterprise, newest first, and the total. */
  listRows(
    db: SqlExecutor,
    enterpriseId: string,
    page: PageRequest,
    beforeRows?: BeforeRows,
  ): Promise<{ rows: Row[]; total: number }>;
  /** With `versionOf`, also the record's version in the enterprise, in the same statement. */
  findRow(
    db: SqlExecutor,
    id: string,
    enterpriseId: string,
    versionOf?: ChangeType,
  ): Promise<FoundRow<Row> | undefined>;
  /** The enterprise's rows among these ids; others are left out. */
  rowsByIds(db: SqlExecutor, ids: readonly string[], enterpriseId: string): Promise<Row[]>;
}

export interface TenantTableRows {
  /** A tenant table: `enterprise_id`, `created_at`, the list index and the row-count triggers. */
  readonly table: PagedTable;
  /** SQL alias of the table in `columns`, e.g. `p`. */
  readonly alias: string;
  /** The SELECT list (columnsOf / allColumnsOf over the entity). */
  readonly columns: string;
  /**
   * Wraps the selection of the table's rows (a subquery of `columns`) when a record needs more
   * than its own row, e.g. an application's active quote; the result keeps the alias `alias`.
   * `enterprise` is the placeholder of the enterprise in the statement (`$1`), for the rows it
   * joins in, so every table the statement reads is read for that one enterprise.
   */
  readonly wrap?: (selection: string, enterprise: string) => string;
  /**
   * A retrieve reads its row without `wrap` (the row and its version only, so a 304 answers
   * before the wrapped work is done); the resource's `present` completes such rows.
   */
  readonly retrieveUnwrapped?: boolean;
}

/**
 * The rows of a tenant table (enterprise_id on every row), read by the list index (newest first then id,
 * a deferred join from whichever end is nearer) and by primary key. Every statement names the
 * enterprise for every table it reads (what sends it to one node of a distributed database);
 * only a retrieve that finds nothing of the enterprise asks, by id alone, whether the record is
 * another enterprise's (403) or none (404).
 */
export function tenantTableRows<Row extends { enterprise_id: string | null }>(spec: TenantTableRows): RowSource<Row> {
  const { table, alias, columns } = spec;
  const select = (where: string, enterprise: string): string =>
    spec.wrap
      ? spec.wrap(`SELECT ${columns} FROM ${table} ${alias} ${where}`, enterprise)
      : `SELECT ${columns} FROM ${table} ${alias} ${where}`;
  const ownRow = `WHERE ${alias}.id = $1 AND ${alias}.enterprise_id = $2`;
  const byId = spec.retrieveUnwrapped ? `SELECT ${columns} FROM ${table} ${alias} ${ownRow}` : select(ownRow, '$2');
  const byIdVersioned = `SELECT s.*, ${changeSeq('$2', '$3', 's.id')} AS change_seq FROM (${byId}) s`;
  const byIds = select(`WHERE ${alias}.id = ANY($1::uuid[]) AND ${alias}.enterprise_id = $2`, '$2');
  return {
    paged: true,
    table,
    async listRows(db, enterpriseId, page, beforeRows) {
      const { total, version } = await countForEnterprise(db, table, enterpriseId);
      beforeRows?.(version);
      const plan = planPage(page, total);
      if (!plan) return { rows: [], total };
      // The page's ids come from the enterprise's range of the list index; the join names it too.
      const selection = `SELECT ${columns} FROM ${table} ${alias} JOIN (${pageIdsSql(table, plan)}) k
          ON k.id = ${alias}.id AND ${alias}.enterprise_id = $1`;
      const rows = await selectRows<Row>(
        db,
        `${spec.wrap ? spec.wrap(selection, '$1') : selection} ORDER BY ${newestFirst(alias)}`,
        pageParams(enterpriseId, plan),
      );
      return { rows, total };
    },
    async findRow(db, id, enterpriseId, versionOf) {
      const found =
        versionOf === undefined
          ? (await selectRows<Row>(db, byId, [id, enterpriseId]))[0]
          : (await selectRows<Row & Versioned>(db, byIdVersioned, [id, enterpriseId, versionOf]))[0];
      if (found)
        return versionOf === undefined ? { row: found, inEnterprise: true } : withVersion(found as Row & Versioned);
      return (await existsInAnyEnterprise(db, table, id)) ? { inEnterprise: false } : undefined;
    },
    async rowsByIds(db, ids, enterpriseId) {
      if (ids.length === 0) return [];
      return selectRows<Row>(db, byIds, [uuidArray([...new Set(ids)]), enterpriseId]);
    },
  };
}

/**
 * Users are not rows of a tenant table: an enterprise's users are its members (memberships),
 * listed whole, newest first (unpaginated).
 */
export function memberRows<Row>(columns: string): RowSource<Row> {
  return {
    paged: false,
    async listRows(db, enterpriseId, _page, beforeRows) {
      // The enterprise's users have a version row of their own, beside the tables' counters.
      if (beforeRows) beforeRows((await countForEnterprise(db, 'users', enterpriseId)).version);
      const rows = await selectRows<Row>(
        db,
        `SELECT ${columns} FROM users u JOIN memberships m ON m.user_id = u.id
          WHERE m.enterprise_id = $1 ORDER BY u.created_at DESC, u.id DESC`,
        [enterpriseId],
      );
      return { rows, total: rows.length };
    },
    async findRow(db, id, enterpriseId, versionOf) {
      const version = versionOf === undefined ? 'NULL' : changeSeq('$2', `'user'`, 'u.id');
      const [found] = await selectRows<Row & Versioned & { member: boolean }>(
        db,
        `SELECT ${columns}, EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.enterprise_id = $2) AS member,
                ${version} AS change_seq
           FROM users u WHERE u.id = $1`,
        [id, enterpriseId],
      );
      if (!found) return undefined;
      const { member, ...row } = found;
      if (member) return withVersion(row as Row & Versioned);
      return { inEnterprise: false, row: row as Row };
    },
    async rowsByIds(db, ids, enterpriseId) {
      if (ids.length === 0) return [];
      return selectRows<Row>(
        db,
        `SELECT ${columns} FROM users u JOIN memberships m ON m.user_id = u.id
          WHERE u.id = ANY($1::uuid[]) AND m.enterprise_id = $2`,
        [uuidArray([...new Set(ids)]), enterpriseId],
      );
    },
  };
}

interface Versioned {
  change_seq: string | null;
}

/** The record's change-log position in the enterprise, as text (NULL: none there). */
function changeSeq(enterprise: string, type: string, id: string): string {
  return `(SELECT c.seq::text FROM change_log c
            WHERE c.enterprise_id = ${enterprise} AND c.record_type = ${type} AND c.record_id = ${id}
              AND c.action = 'upserted')`;
}

function withVersion<Row>(found: Row & Versioned): FoundRow<Row> {
  const { change_seq: version, ...row } = found;
  return version === null ? { row: row as Row, inEnterprise: true } : { row: row as Row, inEnterprise: true, version };
}
