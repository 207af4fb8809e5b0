import type { JsonText } from '../database/json-text.js';
import type { NestedCollection, NestedField } from '../database/nested-json.js';
import { upperFirst } from './labels.js';

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

/** The three contact collections a person and an organisation both carry, each as its JSON text. */
export interface ContactCollections {
  phone_numbers: JsonText<Collection<PhoneNumberRecord>>;
  emails: JsonText<Collection<EmailRecord>>;
  addresses: JsonText<Collection<AddressRecord>>;
}

const TIMESTAMPS: NestedField[] = [
  { key: 'created_at', column: 'created_at', as: 'timestamp' },
  { key: 'updated_at', column: 'updated_at', as: 'timestamp' },
];

/** A phone number: its type with the first letter upper-cased, `is_primary` a boolean. */
export const PHONE_NUMBERS: NestedCollection<PhoneNumberRecord> = {
  table: 'phone_numbers',
  fields: [
    { key: 'id', column: 'id', as: 'text' },
    { key: 'type', column: 'type', as: 'label', format: upperFirst },
    { key: 'number', column: 'number', as: 'text' },
    { key: 'is_primary', column: 'is_primary', as: 'flag' },
    ...TIMESTAMPS,
  ],
};

export const EMAILS: NestedCollection<EmailRecord> = {
  table: 'emails',
  fields: [
    { key: 'id', column: 'id', as: 'text' },
    { key: 'address', column: 'address', as: 'text' },
    { key: 'is_primary', column: 'is_primary', as: 'flag' },
    ...TIMESTAMPS,
  ],
};

/** `address` is the composed line the importer stores. */
export const ADDRESSES: NestedCollection<AddressRecord> = {
  table: 'addresses',
  fields: [
    ...['id', 'type', 'address', 'line1', 'line2', 'line3', 'suburb', 'state', 'postcode'].map(
      (column): NestedField => ({ key: column, column, as: 'text' }),
    ),
    ...TIMESTAMPS,
  ],
};
