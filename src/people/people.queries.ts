import type { FieldCipher } from '../crypto/field-cipher.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { idsMatch, idsMatchSql } from '../database/ids-match.js';
import { tenantTableRows } from '../resources/row-sources.js';
import {
  PERSON_COLUMNS,
  personJsonSql,
  presentPerson,
  type PersonJson,
  type PersonRow,
  type PlainPersonRow,
} from './person.presenter.js';

/**
 * People reads as plain functions: the resource descriptor uses them, and so does the benchmark's
 * raw Fastify + pg baseline, so both run the same SQL and build the same bytes.
 */

/**
 * The people of an enterprise: list index, primary key and batches, each row with its record's
 * JSON; a retrieve reads the row and its version alone first (`presentPeople` completes it).
 */
export const PEOPLE_ROWS = tenantTableRows<PersonRow | PlainPersonRow>({
  table: 'people',
  alias: 'p',
  columns: PERSON_COLUMNS,
  wrap: personJsonSql,
  retrieveUnwrapped: true,
});

/** People by id: one (a retrieve) or several (see `idsMatch`). */
const PEOPLE_BY_ID_SQL = {
  one: personJsonSql(
    `SELECT ${PERSON_COLUMNS} FROM people p WHERE ${idsMatchSql('p.id', 1, true)} AND p.enterprise_id = $2`,
    '$2',
  ),
  many: personJsonSql(
    `SELECT ${PERSON_COLUMNS} FROM people p WHERE ${idsMatchSql('p.id', 1, false)} AND p.enterprise_id = $2`,
    '$2',
  ),
};

const written = (row: PersonRow | PlainPersonRow): row is PersonRow => 'json_head' in row;

/**
 * The records of the rows: PostgreSQL wrote them with the rows (lists, batches); a row read
 * without its JSON (a retrieve) has it written by one more query.
 */
export async function presentPeople(
  db: SqlExecutor,
  cipher: FieldCipher,
  rows: readonly (PersonRow | PlainPersonRow)[],
  enterpriseId: string,
): Promise<PersonJson[]> {
  const plain = rows.filter((row) => !written(row)).map((row) => row.id);
  const match = idsMatch(plain);
  const completed =
    plain.length === 0
      ? new Map<string, PersonRow>()
      : new Map(
          (
            await selectRows<PersonRow>(db, match.one ? PEOPLE_BY_ID_SQL.one : PEOPLE_BY_ID_SQL.many, [
              match.param,
              enterpriseId,
            ])
          ).map((row) => [row.id, row] as const),
        );
  // A person removed between the two statements is left out, as a retrieve then answers 404.
  return rows.flatMap((row) => {
    const full = written(row) ? row : completed.get(row.id);
    return full ? [presentPerson(full, cipher)] : [];
  });
}
