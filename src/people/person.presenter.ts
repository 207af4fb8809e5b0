import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { capitaliseWords, upperFirst } from '../contacts/labels.js';
import type { Collection, ContactCollections } from '../contacts/contact.presenter.js';
import { allColumnsOf } from '../database/entity-columns.js';
import { Person } from './entities/person.entity.js';

/** The person columns a record needs; the first name still encrypted. */
export const PERSON_COLUMNS = allColumnsOf(Person, 'p');

export interface PersonRow {
  id: string;
  enterprise_id: string | null;
  title: string | null;
  first_name_encrypted: string | null;
  middle_name: string | null;
  last_name: string | null;
  salutation: string | null;
  maiden_name: string | null;
  /** `date` columns arrive as `YYYY-MM-DD` (database/pg-types.ts). */
  birthday: string | null;
  gender: string | null;
  licence: string | null;
  licence_card: string | null;
  licence_state: string | null;
  licence_expiry: string | null;
  dependents: number | null;
  dependents_ages: string | null;
  marital_status: string | null;
  residency_status: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FinancialRow {
  id: string;
  type: string;
  /** numeric(14,2): the decimal string PostgreSQL returns, two places. */
  amount: string;
  category: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FinancialRecord {
  id: string;
  type: string;
  amount: string;
  category: string | null;
  created_at: string;
  updated_at: string;
}

/** The canonical (v2) person. */
export interface PersonRecord extends ContactCollections {
  id: string;
  enterprise_id: string | null;
  title: string | null;
  first_name: string | null;
  middle_name: string | null;
  last_name: string | null;
  salutation: string | null;
  maiden_name: string | null;
  birthday: string | null;
  gender: string | null;
  licence: string | null;
  licence_card: string | null;
  licence_state: string | null;
  licence_expiry: string | null;
  dependents: number | null;
  dependents_ages: string | null;
  marital_status: string | null;
  residency_status: string | null;
  created_at: string;
  updated_at: string;
  financials: Collection<FinancialRecord>;
}

/** Labels: type with its first letter upper-cased, category with every word capitalised. */
export function presentFinancial(row: FinancialRow): FinancialRecord {
  return {
    id: row.id,
    type: upperFirst(row.type),
    amount: row.amount,
    category: row.category === null ? null : capitaliseWords(row.category),
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/**
 * Builds the person record from its row, its decrypted first name and its nested collections
 * (already oldest first; financials already limited to amounts above zero).
 */
export function presentPerson(
  row: PersonRow,
  firstName: string | null,
  contacts: ContactCollections,
  financials: FinancialRecord[],
): PersonRecord {
  return {
    id: row.id,
    enterprise_id: row.enterprise_id,
    title: row.title,
    first_name: firstName,
    middle_name: row.middle_name,
    last_name: row.last_name,
    salutation: row.salutation,
    maiden_name: row.maiden_name,
    birthday: row.birthday,
    gender: row.gender,
    licence: row.licence,
    licence_card: row.licence_card,
    licence_state: row.licence_state,
    licence_expiry: row.licence_expiry,
    dependents: row.dependents,
    dependents_ages: row.dependents_ages,
    marital_status: row.marital_status,
    residency_status: row.residency_status,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
    phone_numbers: contacts.phone_numbers,
    emails: contacts.emails,
    addresses: contacts.addresses,
    financials: { data: financials },
  };
}
