import { selectOwnedRows } from '../database/owned-rows.js';
import type { SqlExecutor } from '../database/sql.js';
import {
  presentAddress,
  presentEmail,
  presentPhoneNumber,
  type AddressRow,
  type ContactCollections,
  type EmailRow,
  type PhoneNumberRow,
} from './contact.presenter.js';

/** The column naming a contact row's owner. */
export type ContactOwnerColumn = 'person_id' | 'organisation_id';

/** Nested rows in their order: oldest first, then by id. */
const ORDER = 'ORDER BY owner_id, created_at, id';

const phoneNumbersSql = (owner: ContactOwnerColumn) =>
  `SELECT ${owner} AS owner_id, id, type, number, is_primary, created_at, updated_at
     FROM phone_numbers WHERE ${owner} = ANY($1::uuid[]) ${ORDER}`;

const emailsSql = (owner: ContactOwnerColumn) =>
  `SELECT ${owner} AS owner_id, id, address, is_primary, created_at, updated_at
     FROM emails WHERE ${owner} = ANY($1::uuid[]) ${ORDER}`;

const addressesSql = (owner: ContactOwnerColumn) =>
  `SELECT ${owner} AS owner_id, id, type, address, line1, line2, line3, suburb, state, postcode, created_at, updated_at
     FROM addresses WHERE ${owner} = ANY($1::uuid[]) ${ORDER}`;

/**
 * The phone numbers, emails and addresses of many owners in three queries, whatever their
 * number (no query per owner). Owners without rows get empty collections.
 */
export async function loadContacts(
  executor: SqlExecutor,
  owner: ContactOwnerColumn,
  ownerIds: readonly string[],
): Promise<(ownerId: string) => ContactCollections> {
  const [phoneNumbers, emails, addresses] = await Promise.all([
    selectOwnedRows<PhoneNumberRow>(executor, phoneNumbersSql(owner), ownerIds),
    selectOwnedRows<EmailRow>(executor, emailsSql(owner), ownerIds),
    selectOwnedRows<AddressRow>(executor, addressesSql(owner), ownerIds),
  ]);
  return (ownerId) => ({
    phone_numbers: { data: (phoneNumbers.get(ownerId) ?? []).map(presentPhoneNumber) },
    emails: { data: (emails.get(ownerId) ?? []).map(presentEmail) },
    addresses: { data: (addresses.get(ownerId) ?? []).map(presentAddress) },
  });
}
