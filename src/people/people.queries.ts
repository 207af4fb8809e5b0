import { loadContacts } from '../contacts/contacts.loader.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { selectOwnedRows } from '../database/owned-rows.js';
import type { SqlExecutor } from '../database/sql.js';
import { tenantTableRows } from '../resources/row-sources.js';
import {
  PERSON_COLUMNS,
  presentFinancial,
  presentPerson,
  type FinancialRow,
  type PersonRecord,
  type PersonRow,
} from './person.presenter.js';

/**
 * People reads as plain functions over any SQL executor: the resource descriptor uses them, and so does
 * the benchmark's raw Fastify + pg baseline, so both run the same SQL and build the same bytes.
 */

/** Financial rows: only amounts above zero, oldest first then by id. */
const FINANCIALS_SQL = `SELECT person_id AS owner_id, id, type, amount, category, created_at, updated_at
  FROM financials WHERE person_id = ANY($1::uuid[]) AND amount > 0 ORDER BY owner_id, created_at, id`;

/** The people of an enterprise: list index, primary key and batches. */
export const PEOPLE_ROWS = tenantTableRows<PersonRow>({ table: 'people', alias: 'p', columns: PERSON_COLUMNS });

/** The nested rows of all the people in one query per table, assembled in memory. */
export async function presentPeople(
  db: SqlExecutor,
  cipher: FieldCipher,
  rows: readonly PersonRow[],
): Promise<PersonRecord[]> {
  const ids = rows.map((row) => row.id);
  const [contactsOf, financials] = await Promise.all([
    loadContacts(db, 'person_id', ids),
    selectOwnedRows<FinancialRow>(db, FINANCIALS_SQL, ids),
  ]);
  return rows.map((row) =>
    presentPerson(
      row,
      cipher.decryptNullable(row.first_name_encrypted),
      contactsOf(row.id),
      (financials.get(row.id) ?? []).map(presentFinancial),
    ),
  );
}
