import { loadContacts } from '../contacts/contacts.loader.js';
import type { SqlExecutor } from '../database/sql.js';
import { presentOrganisation, type OrganisationRecord, type OrganisationRow } from './organisation.presenter.js';

/** The contact rows of all the organisations in one query per table, assembled in memory. */
export async function presentOrganisations(
  db: SqlExecutor,
  rows: readonly OrganisationRow[],
  enterpriseId: string,
): Promise<OrganisationRecord[]> {
  const contactsOf = await loadContacts(
    db,
    'organisation_id',
    rows.map((row) => row.id),
    enterpriseId,
  );
  return rows.map((row) => presentOrganisation(row, contactsOf(row.id)));
}
