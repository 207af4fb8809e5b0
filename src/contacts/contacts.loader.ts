import { loadNestedJson } from '../database/nested-json.js';
import type { SqlExecutor } from '../database/sql.js';
import { ADDRESSES, EMAILS, PHONE_NUMBERS, type ContactCollections } from './contact.presenter.js';

/** The column naming a contact row's owner. */
export type ContactOwnerColumn = 'person_id' | 'organisation_id';

/**
 * The phone numbers, emails and addresses of many owners of one enterprise, each owner's as JSON text, in a fixed
 * number of queries whatever their number (no query per owner). Owners without rows get empty
 * collections.
 */
export async function loadContacts(
  executor: SqlExecutor,
  owner: ContactOwnerColumn,
  ownerIds: readonly string[],
  enterpriseId: string,
): Promise<(ownerId: string) => ContactCollections> {
  const [phoneNumbers, emails, addresses] = await Promise.all([
    loadNestedJson(executor, PHONE_NUMBERS, owner, ownerIds, enterpriseId),
    loadNestedJson(executor, EMAILS, owner, ownerIds, enterpriseId),
    loadNestedJson(executor, ADDRESSES, owner, ownerIds, enterpriseId),
  ]);
  return (ownerId) => ({
    phone_numbers: phoneNumbers(ownerId),
    emails: emails(ownerId),
    addresses: addresses(ownerId),
  });
}
