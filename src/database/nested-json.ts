import { createHash } from 'node:crypto';
import { JsonText } from './json-text.js';
import { formatLabels, jsonLabelSql, labelMarkerSql } from './json-labels.js';
import {
  jsonDecimalTextSql,
  jsonFlagSql,
  jsonIntegerSql,
  jsonMembersSql,
  jsonTextSql,
  jsonTimestampSql,
  storedJsonDateSql,
  storedJsonLabelSql,
  storedJsonTextSql,
  storedJsonTimestampSql,
} from './json-sql.js';
import { selectRows, type SqlExecutor } from './sql.js';
import { idsMatch, idsMatchSql } from './ids-match.js';

/** How a column is written in a record's JSON (a nested row's, or a person's own members). */
export type NestedField =
  | {
      readonly key: string;
      readonly column: string;
      readonly as: 'text' | 'date' | 'integer' | 'decimal' | 'flag' | 'timestamp';
    }
  /** A label formatted by `format` (the JS function is the one definition of the formatting). */
  | { readonly key: string; readonly column: string; readonly as: 'label'; readonly format: (text: string) => string };

/** A collection of rows nested in a record (`{"data": [...]}`): a person's phone numbers. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- Row: the record type of a row, for the compiler.
export interface NestedCollection<Row = unknown> {
  readonly table: string;
  /** The record's keys in order, each from a column of the row. */
  readonly fields: readonly NestedField[];
  /** An extra condition on the rows (SQL on the alias `x`). */
  readonly where?: string;
}

/** The owner column of a nested table: `person_id`, `organisation_id`. */
export type OwnerColumn = string;

const EMPTY = new JsonText<{ data: never[] }>('{"data":[]}');

/** How each kind of field is written as JSON: SQL of the column's value, given the column's SQL. */
type JsonWriters = { readonly [Kind in NestedField['as']]: (column: string, field: NestedField) => string };

/** The format of a label field (the writers call it for `label` fields only). */
function formatOf(field: NestedField): (text: string) => string {
  if (field.as !== 'label') throw new Error(`nested-json: ${field.column} is not a label`);
  return field.format;
}

/** As the reads write them. */
const READ: JsonWriters = {
  text: jsonTextSql,
  date: jsonTextSql,
  integer: jsonIntegerSql,
  decimal: jsonDecimalTextSql,
  flag: jsonFlagSql,
  timestamp: jsonTimestampSql,
  label: (column, field) => jsonLabelSql(column, formatOf(field)),
};

/** The same from immutable functions, for generated columns. */
const STORED: JsonWriters = {
  text: storedJsonTextSql,
  date: storedJsonDateSql,
  integer: jsonIntegerSql,
  decimal: jsonDecimalTextSql,
  flag: jsonFlagSql,
  timestamp: storedJsonTimestampSql,
  label: (column, field) => storedJsonLabelSql(column, labelMarkerSql(formatOf(field))),
};

function fieldMembersSql(
  fields: readonly NestedField[],
  writers: JsonWriters,
  columnSql: (column: string) => string,
  more: boolean,
): string {
  return jsonMembersSql(
    fields.map((field) => [field.key, writers[field.as](columnSql(field.column), field)] as const),
    more,
  );
}

/** `"key":value` members of these fields of the row `alias` (after a comma when `more`). */
export function membersJsonSql(fields: readonly NestedField[], alias: string, more = false): string {
  return fieldMembersSql(fields, READ, (column) => `${alias}.${column}`, more);
}

/** One nested row as JSON (its labels still marked: `formatLabels`), from the alias `x`. */
export function rowJsonSql(collection: NestedCollection): string {
  return `'{' || ${membersJsonSql(collection.fields, 'x')} || '}'`;
}

/** `membersJsonSql` from immutable functions, of the row's own columns (in a generated column). */
export function storedMembersJsonSql(fields: readonly NestedField[], more = false): string {
  return fieldMembersSql(fields, STORED, (column) => `"${column}"`, more);
}

/** The version of generated JSON columns' expressions: a hash of their SQL. */
export function versionOfSql(...expressions: string[]): number {
  return createHash('sha256').update(expressions.join('\n')).digest().readInt32BE(0);
}

/**
 * A nested row keeps its JSON in a generated column, `record_json`, which PostgreSQL writes with
 * the row (whoever writes it: the import's COPY, an UPDATE, a test's INSERT), so that a read
 * copies it instead of building it again: on a feed page of 500 people, building their 3,000
 * rows' JSON was a third of PostgreSQL's time. This is its expression: `rowJsonSql` from
 * immutable functions, the same bytes. A second generated column, `record_json_version`, holds
 * the version of the expression that wrote the JSON (a hash of it): a read uses the stored JSON
 * only when it is this version, and builds the JSON from the columns otherwise, so a database
 * whose columns were defined by another version of this code is read correctly, only slower.
 */
export function storedJsonSql(collection: NestedCollection): string {
  return `'{' || ${storedMembersJsonSql(collection.fields)} || '}'`;
}

const versions = new Map<NestedCollection, number>();

/** The version of `storedJsonSql` (the expression of the generated `record_json_version`). */
export function storedJsonVersion(collection: NestedCollection): number {
  let version = versions.get(collection);
  if (version === undefined) {
    version = versionOfSql(storedJsonSql(collection));
    versions.set(collection, version);
  }
  return version;
}

/**
 * A record's stored JSON column (`<alias>.<stored>`) when the row's `record_json_version` is
 * `version`, the JSON built by `built` otherwise: the one rule by which reads use stored JSON.
 */
export function storedOrBuiltSql(alias: string, stored: string, version: number, built: string): string {
  return `CASE WHEN ${alias}.record_json_version = ${version} THEN ${alias}.${stored} ELSE ${built} END`;
}

/** A nested row's JSON from the alias `x`: the stored text when its version is current, else built. */
function presentedRowJsonSql(collection: NestedCollection): string {
  return storedOrBuiltSql('x', 'record_json', storedJsonVersion(collection), rowJsonSql(collection));
}

function rowsWhereSql(collection: NestedCollection, ownerCondition: string): string {
  return `FROM ${collection.table} x WHERE ${ownerCondition}${collection.where ? ` AND ${collection.where}` : ''}`;
}

/** The JSON of an owner without rows in a collection, as an SQL literal. */
export const EMPTY_COLLECTION_SQL = `'${EMPTY.text}'`;

/**
 * SQL for the collection of every owner a query reads (`owners`, the name of a CTE or table with
 * their `id`), as rows `(owner_id, json)`, the JSON `{"data":[...]}` oldest first then by id; an
 * owner without rows has none (`EMPTY_COLLECTION_SQL`). One aggregate for all the owners, their
 * rows found by one index scan for the array of owners: a subquery per owner costs PostgreSQL an
 * index scan, an aggregate and a sort set up per owner, which on a page of 500 people was most of
 * the statement's time (and an `IN (SELECT ...)` join still scanned the index once per owner).
 */
export function collectionByOwnerSql(
  collection: NestedCollection,
  owner: OwnerColumn,
  owners: string,
  enterprise: string,
): string {
  // The rows are sorted once, in a subquery, and aggregated in the order they come: an ordered
  // aggregate (`string_agg(... ORDER BY ...)`) makes PostgreSQL 15 set up a sort for each owner,
  // an eighth of a 500-person batch's statement. A subquery with ORDER BY is never merged into
  // the query around it, and grouping reads its rows in order.
  return `SELECT x.${owner} AS owner_id,
      '{"data":[' || string_agg(${presentedRowJsonSql(collection)}, ',') || ']}' AS json
    FROM (SELECT * ${rowsWhereSql(collection, `x.${owner} = ANY (ARRAY(SELECT id FROM ${owners})) AND x.enterprise_id = ${enterprise}`)}
           ORDER BY x.${owner}, x.created_at, x.id) x GROUP BY x.${owner}`;
}

const rowsSqlCache = new Map<string, string>();

/** Each row as its JSON text, by owner, oldest first then by id (`$1` the owner or owners, `$2` their enterprise). */
function rowsSql(collection: NestedCollection, owner: OwnerColumn, one: boolean): string {
  const key = `${collection.table}.${owner}.${one ? 'one' : 'many'}`;
  let sql = rowsSqlCache.get(key);
  if (sql === undefined) {
    sql = `SELECT x.${owner} AS owner_id, ${presentedRowJsonSql(collection)} AS json
      ${rowsWhereSql(collection, `${idsMatchSql(`x.${owner}`, 1, one)} AND x.enterprise_id = $2`)} ORDER BY x.${owner}, x.created_at, x.id`;
    rowsSqlCache.set(key, sql);
  }
  return sql;
}

/**
 * The nested rows of many owners, each row written as JSON by PostgreSQL, in one query whatever
 * the number of owners. An owner without rows gets `{"data":[]}`.
 */
export async function loadNestedJson<Row>(
  db: SqlExecutor,
  collection: NestedCollection<Row>,
  owner: OwnerColumn,
  ownerIds: readonly string[],
  enterpriseId: string,
): Promise<(ownerId: string) => JsonText<{ data: Row[] }>> {
  if (ownerIds.length === 0) return () => EMPTY;
  const match = idsMatch(ownerIds);
  const rows = await selectRows<{ owner_id: string; json: string }>(db, rowsSql(collection, owner, match.one), [
    match.param,
    enterpriseId,
  ]);
  const byOwner = new Map<string, JsonText<{ data: Row[] }>>();
  let start = 0;
  for (let i = 1; i <= rows.length; i++) {
    const ownerId = rows[start]?.owner_id ?? '';
    if (i < rows.length && rows[i]?.owner_id === ownerId) continue;
    const texts = rows.slice(start, i).map((row) => row.json);
    byOwner.set(ownerId, new JsonText(formatLabels(`{"data":[${texts.join(',')}]}`)));
    start = i;
  }
  return (ownerId) => byOwner.get(ownerId) ?? EMPTY;
}
