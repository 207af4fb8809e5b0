import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The generated JSON of each nested table's rows and its version, as the code wrote them then. */
const STORED: Record<string, { json: string; version: number }> = {
  phone_numbers: {
    json: `'{' || '"id":' || record_json_text("id"::text) || ',"type":' || CASE WHEN "type" IS NULL THEN 'null' ELSE chr(1) || '0' || record_json_text("type"::text) END || ',"number":' || record_json_text("number"::text) || ',"is_primary":' || CASE WHEN "is_primary" = 1 THEN 'true' ELSE 'false' END || ',"created_at":' || record_json_timestamp("created_at") || ',"updated_at":' || record_json_timestamp("updated_at") || '}'`,
    version: 1664561033,
  },
  emails: {
    json: `'{' || '"id":' || record_json_text("id"::text) || ',"address":' || record_json_text("address"::text) || ',"is_primary":' || CASE WHEN "is_primary" = 1 THEN 'true' ELSE 'false' END || ',"created_at":' || record_json_timestamp("created_at") || ',"updated_at":' || record_json_timestamp("updated_at") || '}'`,
    version: -1035842641,
  },
  addresses: {
    json: `'{' || '"id":' || record_json_text("id"::text) || ',"type":' || record_json_text("type"::text) || ',"address":' || record_json_text("address"::text) || ',"line1":' || record_json_text("line1"::text) || ',"line2":' || record_json_text("line2"::text) || ',"line3":' || record_json_text("line3"::text) || ',"suburb":' || record_json_text("suburb"::text) || ',"state":' || record_json_text("state"::text) || ',"postcode":' || record_json_text("postcode"::text) || ',"created_at":' || record_json_timestamp("created_at") || ',"updated_at":' || record_json_timestamp("updated_at") || '}'`,
    version: 989079442,
  },
  financials: {
    json: `'{' || '"id":' || record_json_text("id"::text) || ',"type":' || CASE WHEN "type" IS NULL THEN 'null' ELSE chr(1) || '0' || record_json_text("type"::text) END || ',"amount":' || coalesce('"' || "amount"::text || '"', 'null') || ',"category":' || CASE WHEN "category" IS NULL THEN 'null' ELSE chr(1) || '1' || record_json_text("category"::text) END || ',"created_at":' || record_json_timestamp("created_at") || ',"updated_at":' || record_json_timestamp("updated_at") || '}'`,
    version: -542197053,
  },
};

/** The generated JSON of a person's own members, before and after the first name, and its version. */
const PERSON = {
  head: `'{' || '"id":' || record_json_text("id"::text) || ',"enterprise_id":' || record_json_text("enterprise_id"::text) || ',"title":' || record_json_text("title"::text)`,
  tail: `',"middle_name":' || record_json_text("middle_name"::text) || ',"last_name":' || record_json_text("last_name"::text) || ',"salutation":' || record_json_text("salutation"::text) || ',"maiden_name":' || record_json_text("maiden_name"::text) || ',"birthday":' || record_json_date("birthday") || ',"gender":' || record_json_text("gender"::text) || ',"licence":' || record_json_text("licence"::text) || ',"licence_card":' || record_json_text("licence_card"::text) || ',"licence_state":' || record_json_text("licence_state"::text) || ',"licence_expiry":' || record_json_date("licence_expiry") || ',"dependents":' || coalesce("dependents"::text, 'null') || ',"dependents_ages":' || record_json_text("dependents_ages"::text) || ',"marital_status":' || record_json_text("marital_status"::text) || ',"residency_status":' || record_json_text("residency_status"::text) || ',"created_at":' || record_json_timestamp("created_at") || ',"updated_at":' || record_json_timestamp("updated_at")`,
  version: 1183664985,
};

/** A text as a JSON string, as `to_json` writes it: `"`, `\` and control characters escaped. */
function jsonTextBody(): string {
  const short: Record<number, string> = { 8: 'b', 9: 't', 10: 'n', 12: 'f', 13: 'r' };
  // Backslashes first, so that the escapes written after are not escaped again.
  let escaped = `replace(replace(value, chr(92), chr(92) || chr(92)), chr(34), chr(92) || chr(34))`;
  for (let code = 1; code < 32; code++) {
    escaped = `replace(${escaped}, chr(${code}), chr(92) || '${short[code] ?? `u${code.toString(16).padStart(4, '0')}`}')`;
  }
  return `CASE WHEN value IS NULL THEN 'null'
    WHEN value ~ '[\\x01-\\x1f"\\\\]' THEN '"' || ${escaped} || '"'
    ELSE '"' || value || '"' END`;
}

/** A date as PostgreSQL writes it in ISO style (`YYYY-MM-DD`, at least four digits of year, ` BC`). */
function jsonDateBody(): string {
  const field = (name: string) => `date_part('${name}', value)::int`;
  const two = (sql: string) => `lpad((${sql})::text, 2, '0')`;
  const year = `abs(${field('year')})`;
  return `CASE WHEN value IS NULL THEN 'null'
    WHEN value = 'infinity'::date THEN '"infinity"' WHEN value = '-infinity'::date THEN '"-infinity"'
    ELSE '"' || CASE WHEN ${year} < 1000 THEN lpad(${year}::text, 4, '0') ELSE ${year}::text END || '-' ||
      ${two(field('month'))} || '-' || ${two(field('day'))} || CASE WHEN value < '0001-01-01'::date THEN ' BC' ELSE '' END || '"'
    END`;
}

/**
 * A timestamp as toISOString writes it (UTC, milliseconds cut from the microseconds, `Z`; years
 * outside 0000-9999 with a sign and six digits, counted astronomically), from its fields.
 */
function jsonTimestampBody(): string {
  // A zone given as an offset: a zone's name would be looked up again for every value.
  const utc = `(value AT TIME ZONE INTERVAL '+00:00')`;
  const field = (name: string) => `date_part('${name}', ${utc})::int`;
  const two = (sql: string) => `lpad((${sql})::text, 2, '0')`;
  const year = `(CASE WHEN ${field('year')} < 0 THEN ${field('year')} + 1 ELSE ${field('year')} END)`;
  const writtenYear = `(CASE WHEN value >= '0001-01-01 00:00:00+00' AND value < '10000-01-01 00:00:00+00'
      THEN lpad(${field('year')}::text, 4, '0')
    WHEN ${year} BETWEEN 0 AND 9999 THEN lpad(${year}::text, 4, '0')
    WHEN ${year} < 0 THEN '-' || lpad((-${year})::text, 6, '0') ELSE '+' || lpad(${year}::text, 6, '0') END)`;
  // The time of day as the time type writes it, to the millisecond: one microsecond after the
  // millisecond, so that all six digits of the fraction are written, then cut to three.
  const time = `left(((date_trunc('milliseconds', ${utc}) + interval '1 microsecond')::time)::text, 12)`;
  return `CASE WHEN value IS NULL THEN 'null' ELSE '"' || ${writtenYear} || '-' || ${two(field('month'))} || '-' ||
    ${two(field('day'))} || 'T' || ${time} || 'Z"' END`;
}

/**
 * A nested row (phone number, email, address, financial) keeps its record's JSON in a generated
 * column, `record_json`, and a person the JSON of its own members (`record_json_head` before the
 * encrypted first name, `record_json_tail` after it), which PostgreSQL writes with the row whoever writes it (the import's
 * COPY, an UPDATE, any INSERT), so that reads copy it instead of building it again; and
 * `record_json_version`, the version of the code that defined it, so that code with another
 * version builds the JSON from the columns instead (see `storedJsonSql`). The three functions are
 * the immutable twins of the reads' `to_json` and `to_char` formatting (a generated column takes
 * only immutable functions); they are plain SQL, which PostgreSQL inlines. Adding the columns
 * rewrites the five tables once. test/api/records-written-by-postgres holds that the stored JSON is
 * the JSON the reads build, and of the code's version.
 */
export class StoredRecordJson1764900000000 implements MigrationInterface {
  name = 'StoredRecordJson1764900000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE FUNCTION record_json_text(value text) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ${jsonTextBody()} $$`);
    await q.query(`CREATE FUNCTION record_json_date(value date) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ${jsonDateBody()} $$`);
    await q.query(`CREATE FUNCTION record_json_timestamp(value timestamptz) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ${jsonTimestampBody()} $$`);
    // TypeORM's schema builder reads a generated column's expression from its own table, and fails
    // without it; it records expressions by database name, which a copy or a restore under another
    // name does not keep, so none is recorded and the entities leave the two columns out.
    await q.query(`CREATE TABLE typeorm_metadata (
      type varchar NOT NULL, database varchar, schema varchar, "table" varchar, name varchar, value text)`);
    for (const [table, { json, version }] of Object.entries(STORED)) {
      await q.query(`ALTER TABLE ${table}
        ADD COLUMN record_json text GENERATED ALWAYS AS (${json}) STORED,
        ADD COLUMN record_json_version integer GENERATED ALWAYS AS (${version}) STORED`);
    }
    await q.query(`ALTER TABLE people
      ADD COLUMN record_json_head text GENERATED ALWAYS AS (${PERSON.head}) STORED,
      ADD COLUMN record_json_tail text GENERATED ALWAYS AS (${PERSON.tail}) STORED,
      ADD COLUMN record_json_version integer GENERATED ALWAYS AS (${PERSON.version}) STORED`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE people DROP COLUMN record_json_head, DROP COLUMN record_json_tail,
      DROP COLUMN record_json_version`);
    for (const table of Object.keys(STORED)) {
      await q.query(`ALTER TABLE ${table} DROP COLUMN record_json, DROP COLUMN record_json_version`);
    }
    await q.query(`DROP TABLE typeorm_metadata`);
    await q.query(`DROP FUNCTION record_json_timestamp(timestamptz)`);
    await q.query(`DROP FUNCTION record_json_date(date)`);
    await q.query(`DROP FUNCTION record_json_text(text)`);
  }
}
