import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { upperFirst } from './labels.js';

/** Columns of the nested contact rows, as their loaders select them (plus the owner id). */
export interface PhoneNumberRow {
  id: string;
  type: string;
  number: string;
  is_primary: number;
  created_at: Date;
  updated_at: Date;
}

export interface EmailRow {
  id: string;
  address: string;
  is_primary: number;
  created_at: Date;
  updated_at: Date;
}

export interface AddressRow {
  id: string;
  type: string | null;
  address: string | null;
  line1: string | null;
  line2: string | null;
  line3: string | null;
  suburb: string | null;
  state: string | null;
  postcode: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface PhoneNumberRecord {
  id: string;
  type: string;
  number: string;
  is_primary: boolean;
  created_at: string;
  updated_at: string;
}

export interface EmailRecord {
  id: string;
  address: string;
  is_primary: boolean;
  created_at: string;
  updated_at: string;
}

export interface AddressRecord {
  id: string;
  type: string | null;
  address: string | null;
  line1: string | null;
  line2: string | null;
  line3: string | null;
  suburb: string | null;
  state: string | null;
  postcode: string | null;
  created_at: string;
  updated_at: string;
}

/** A nested collection: `{data: [rows]}`. */
export interface Collection<T> {
  data: T[];
}

/** The three contact collections a person and an organisation both carry. */
export interface ContactCollections {
  phone_numbers: Collection<PhoneNumberRecord>;
  emails: Collection<EmailRecord>;
  addresses: Collection<AddressRecord>;
}

export function presentPhoneNumber(row: PhoneNumberRow): PhoneNumberRecord {
  return {
    id: row.id,
    type: upperFirst(row.type),
    number: row.number,
    is_primary: row.is_primary === 1,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

export function presentEmail(row: EmailRow): EmailRecord {
  return {
    id: row.id,
    address: row.address,
    is_primary: row.is_primary === 1,
    created_at: isoTimestamp(row.created_at),
    updated_at: isoTimestamp(row.updated_at),
  };
}

/** `address` is the composed line the importer stores (import-format.md). */
export function presentAddress(row: AddressRow): AddressRecord {
  return {
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
  };
}
