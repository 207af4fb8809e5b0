import { loadContacts } from '../common/contacts/contacts.loader.js';
import type { FieldCipher } from '../common/crypto/field-cipher.js';
import type { PageRequest } from '../common/http/pagination.js';
import { selectOwnedRows } from '../database/owned-rows.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import {
  countForEnterprise,
  newestFirst,
  pageIdsSql,
  pageParams,
  planPage,
  type Page,
} from '../database/tenant-page.js';
import {
  PERSON_COLUMNS,
  presentFinancial,
  presentPerson,
  type FinancialRow,
  type PersonRecord,
  type PersonRow,
} from './person.presenter.js';

/**
 * People reads as plain functions over any SQL executor: the Nest service uses them, and so does
 * the benchmark's raw Fastify + pg baseline, so both run the same SQL and build the same bytes.
 */

/** R4: only amounts above zero, oldest first then by id. */
const FINANCIALS_SQL = `SELECT person_id AS owner_id, id, type, amount, category, created_at, updated_at
  FROM financials WHERE person_id = ANY($1::uuid[]) AND amount > 0 ORDER BY owner_id, created_at, id`;

/** One page of the enterprise's people (R7): six queries whatever the page holds or where it is. */
export async function listPeoplePage(
  db: SqlExecutor,
  cipher: FieldCipher,
  enterpriseId: string,
  page: PageRequest,
): Promise<Page<PersonRecord>> {
  const total = await countForEnterprise(db, 'people', enterpriseId);
  const plan = planPage(page, total);
  if (!plan) return { records: [], total };
  const rows = await selectRows<PersonRow>(
    db,
    `SELECT ${PERSON_COLUMNS} FROM people p JOIN (${pageIdsSql('people', plan)}) k ON k.id = p.id
      ORDER BY ${newestFirst('p')}`,
    pageParams(enterpriseId, plan),
  );
  return { records: await presentPeople(db, cipher, rows), total };
}

export async function findPersonRow(db: SqlExecutor, id: string): Promise<PersonRow | undefined> {
  const [row] = await selectRows<PersonRow>(db, `SELECT ${PERSON_COLUMNS} FROM people p WHERE p.id = $1`, [id]);
  return row;
}

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
