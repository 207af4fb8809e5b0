/**
 * SQL expressions that write a column as JSON text, byte for byte what JSON.stringify writes for
 * the value the row presenters used to make of it: `to_json` escapes text as JSON.stringify does
 * (`\"`, `\\`, `\b\f\n\r\t`, other control characters as lowercase `\u00xx`; PostgreSQL text holds
 * no NUL and no lone surrogate). Each expression is `null` for a NULL column.
 */

/** A text (or uuid, or `YYYY-MM-DD` date) column as a JSON string, as pg hands it over. */
export function jsonTextSql(column: string): string {
  return `coalesce(to_json(${column}::text)::text, 'null')`;
}

/** A `numeric` column as the JSON string of its decimal text (amounts are strings in records). */
export function jsonDecimalTextSql(column: string): string {
  return `coalesce('"' || ${column}::text || '"', 'null')`;
}

/** A flag stored as 1 (true) or anything else (false), as a JSON boolean. */
export function jsonFlagSql(column: string): string {
  return `CASE WHEN ${column} = 1 THEN 'true' ELSE 'false' END`;
}

/**
 * A `timestamptz` as `isoTimestamp` writes it (Date.prototype.toISOString): UTC, milliseconds
 * (the microseconds cut off, as pg's parser does), `Z`. Years outside 0000-9999 are written as
 * toISOString writes them, a sign and six digits; years are counted astronomically (1 BC is 0000).
 */
export function jsonTimestampSql(column: string): string {
  const utc = `(${column} AT TIME ZONE 'UTC')`;
  // PostgreSQL numbers BC years from -1; astronomically 1 BC is year 0.
  const bcYear = `extract(year FROM ${utc})::int`;
  const year = `(CASE WHEN ${bcYear} < 0 THEN ${bcYear} + 1 ELSE ${bcYear} END)`;
  const writtenYear = `(CASE WHEN ${year} BETWEEN 0 AND 9999 THEN lpad(${year}::text, 4, '0')
    WHEN ${year} < 0 THEN '-' || lpad((-${year})::text, 6, '0') ELSE '+' || lpad(${year}::text, 6, '0') END)`;
  return `CASE WHEN ${column} IS NULL THEN 'null'
    WHEN ${column} >= '0001-01-01 00:00:00+00' AND ${column} < '10000-01-01 00:00:00+00'
      THEN '"' || to_char(${utc}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
    ELSE '"' || ${writtenYear} || to_char(${utc}, '-MM-DD"T"HH24:MI:SS.MS"Z"') || '"' END`;
}

/** An integer column as a JSON number. */
export function jsonIntegerSql(column: string): string {
  return `coalesce(${column}::text, 'null')`;
}

type Members = readonly (readonly [key: string, valueSql: string])[];

/** `"key":value` members of a JSON object, comma-separated (and after a comma when `more`). */
export function jsonMembersSql(members: Members, more = false): string {
  return members
    .map(([key, valueSql], i) => `'${i === 0 && !more ? '' : ','}${JSON.stringify(key)}:' || ${valueSql}`)
    .join(' || ');
}

/*
 * The same JSON from immutable functions only, for the generated columns that keep a record's JSON
 * (`record_json`, a person's `record_json_head` and `record_json_tail`): PostgreSQL computes a
 * generated column with the row and accepts only immutable functions in it, and `to_json`,
 * `to_char` and a date's text are merely stable (they consult settings for some types; not for
 * text, nor for the fixed formats used here). The migration that adds the columns defines
 * `record_json_text`, `record_json_date` and `record_json_timestamp`, SQL functions PostgreSQL
 * inlines, byte for byte what the functions above write; test/api/records-written-by-postgres
 * holds that for the edge cases.
 */

/** `jsonTextSql` from immutable functions. */
export function storedJsonTextSql(column: string): string {
  return `record_json_text(${column}::text)`;
}

/** `jsonLabelSql`'s marked label from immutable functions (`marker`: the marker byte and digit). */
export function storedJsonLabelSql(column: string, marker: string): string {
  return `CASE WHEN ${column} IS NULL THEN 'null' ELSE ${marker} || record_json_text(${column}::text) END`;
}

/** `jsonTextSql` of a `date` from immutable functions (the text ISO dates have, as pg hands it over). */
export function storedJsonDateSql(column: string): string {
  return `record_json_date(${column})`;
}

/** `jsonTimestampSql` from immutable functions. */
export function storedJsonTimestampSql(column: string): string {
  return `record_json_timestamp(${column})`;
}
