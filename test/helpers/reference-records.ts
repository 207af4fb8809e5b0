import { isoTimestamp } from '../../src/common/http/iso-timestamp.js';
import { capitaliseWords, upperFirst } from '../../src/contacts/labels.js';
import type { AddressRecord, EmailRecord, PhoneNumberRecord } from '../../src/contacts/contact.presenter.js';
import type { FinancialRecord, PersonRecord } from '../../src/people/person.presenter.js';

/**
 * The records as the service built them in JavaScript before PostgreSQL wrote them, from rows read
 * plainly (pg's type parsers, as the service installs them): the reference the SQL presenters are
 * held to, byte for byte.
 */

interface Stamped {
  id: string;
  created_at: Date;
  updated_at: Date;
}

/** A person's row: the record's own fields, the first name aside, timestamps as pg parses them. */
export type PlainPersonRow = Omit<
  PersonRecord,
  'first_name' | 'created_at' | 'updated_at' | 'phone_numbers' | 'emails' | 'addresses' | 'financials'
> &
  Stamped;

export interface PlainPhoneRow extends Stamped {
  type: string;
  number: string;
  is_primary: number;
}

export interface PlainEmailRow extends Stamped {
  address: string;
  is_primary: number;
}

export type PlainAddressRow = Omit<AddressRecord, 'created_at' | 'updated_at'> & Stamped;

export interface PlainFinancialRow extends Stamped {
  type: string;
  amount: string;
  category: string | null;
}

export const referencePhone = (row: PlainPhoneRow): PhoneNumberRecord => ({
  id: row.id,
  type: upperFirst(row.type),
  number: row.number,
  is_primary: row.is_primary === 1,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

export const referenceEmail = (row: PlainEmailRow): EmailRecord => ({
  id: row.id,
  address: row.address,
  is_primary: row.is_primary === 1,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

export const referenceAddress = (row: PlainAddressRow): AddressRecord => ({
  id: row.id,
  type: row.type,
  address: row.address,
  line1: row.line1,
  line2: row.line2,
  line3: row.line3,
  suburb: row.suburb,
  state: row.state,
  postcode: row.postcode,
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

export const referenceFinancial = (row: PlainFinancialRow): FinancialRecord => ({
  id: row.id,
  type: upperFirst(row.type),
  amount: row.amount,
  category: row.category === null ? null : capitaliseWords(row.category),
  created_at: isoTimestamp(row.created_at),
  updated_at: isoTimestamp(row.updated_at),
});

export interface PlainNestedRows {
  phones: PlainPhoneRow[];
  emails: PlainEmailRow[];
  addresses: PlainAddressRow[];
  /** Only amounts above zero, as the service shows. */
  financials: PlainFinancialRow[];
}

/** Nested rows oldest first, then by id. */
export function oldestFirst<T extends Stamped>(rows: T[]): T[] {
  return [...rows].sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

export function referencePerson(row: PlainPersonRow, firstName: string | null, nested: PlainNestedRows): PersonRecord {
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
    phone_numbers: { data: oldestFirst(nested.phones).map(referencePhone) },
    emails: { data: oldestFirst(nested.emails).map(referenceEmail) },
    addresses: { data: oldestFirst(nested.addresses).map(referenceAddress) },
    financials: { data: oldestFirst(nested.financials).map(referenceFinancial) },
  };
}
