import { findApplicationsByIds } from '../applications/applications.queries.js';
import type { FieldCipher } from '../common/crypto/field-cipher.js';
import { presentLead, LEAD_RECORD_COLUMNS, type LeadRow } from '../leads/lead.presenter.js';
import { ORGANISATION_COLUMNS, type OrganisationRow } from '../organisations/organisation.presenter.js';
import { presentOrganisations } from '../organisations/organisations.queries.js';
import { presentPeople } from '../people/people.queries.js';
import { PERSON_COLUMNS, type PersonRow } from '../people/person.presenter.js';
import { presentQuotesWithApplications, QUOTE_COLUMNS } from '../quotes/quotes.queries.js';
import type { QuoteRow } from '../quotes/quote.presenter.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { presentUser, USER_COLUMNS, type UserRow } from '../users/user.presenter.js';
import type { ChangeType } from './change-types.js';

interface Identified {
  id: string;
}

type Loader = (db: SqlExecutor, cipher: FieldCipher, ids: string[], enterpriseId: string) => Promise<Identified[]>;

/**
 * Each type's records as its own retrieve answers them, a batch at a time: the same presenters
 * and the same fixed number of queries as a list page, whatever the batch holds. Records that
 * are not the enterprise's are left out.
 */
const LOADERS: Record<ChangeType, Loader> = {
  person: async (db, cipher, ids, enterpriseId) =>
    presentPeople(
      db,
      cipher,
      await selectRows<PersonRow>(
        db,
        `SELECT ${PERSON_COLUMNS} FROM people p WHERE p.id = ANY($1::uuid[]) AND p.enterprise_id = $2`,
        [ids, enterpriseId],
      ),
    ),
  organisation: async (db, _cipher, ids, enterpriseId) =>
    presentOrganisations(
      db,
      await selectRows<OrganisationRow>(
        db,
        `SELECT ${ORGANISATION_COLUMNS} FROM organisations o WHERE o.id = ANY($1::uuid[]) AND o.enterprise_id = $2`,
        [ids, enterpriseId],
      ),
    ),
  application: async (db, _cipher, ids, enterpriseId) => [
    ...(await findApplicationsByIds(db, ids, enterpriseId)).values(),
  ],
  quote: async (db, _cipher, ids, enterpriseId) =>
    presentQuotesWithApplications(
      db,
      await selectRows<QuoteRow>(
        db,
        `SELECT ${QUOTE_COLUMNS} FROM quotes WHERE id = ANY($1::uuid[]) AND enterprise_id = $2`,
        [ids, enterpriseId],
      ),
      enterpriseId,
    ),
  lead: async (db, _cipher, ids, enterpriseId) =>
    (
      await selectRows<LeadRow>(
        db,
        `SELECT ${LEAD_RECORD_COLUMNS} FROM leads WHERE id = ANY($1::uuid[]) AND enterprise_id = $2`,
        [ids, enterpriseId],
      )
    ).map(presentLead),
  user: async (db, _cipher, ids, enterpriseId) =>
    (
      await selectRows<UserRow>(
        db,
        `SELECT ${USER_COLUMNS} FROM users u JOIN memberships m ON m.user_id = u.id
          WHERE u.id = ANY($1::uuid[]) AND m.enterprise_id = $2`,
        [ids, enterpriseId],
      )
    ).map(presentUser),
};

/** The current records of these ids, by type then id: one batch per type that has any. */
export async function loadChangedRecords(
  db: SqlExecutor,
  cipher: FieldCipher,
  enterpriseId: string,
  idsByType: ReadonlyMap<ChangeType, string[]>,
): Promise<Map<ChangeType, Map<string, unknown>>> {
  const loaded = new Map<ChangeType, Map<string, unknown>>();
  for (const [type, ids] of idsByType) {
    if (ids.length === 0) continue;
    const records = await LOADERS[type](db, cipher, ids, enterpriseId);
    loaded.set(type, new Map(records.map((record) => [record.id, record])));
  }
  return loaded;
}
