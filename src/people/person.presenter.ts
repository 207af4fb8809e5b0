import { RecordJson } from '../database/json-text.js';
import {
  ADDRESSES,
  EMAILS,
  PHONE_NUMBERS,
  type AddressRecord,
  type Collection,
  type EmailRecord,
  type PhoneNumberRecord,
} from '../contacts/contact.presenter.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import { formatLabels } from '../database/json-labels.js';
import { jsonIntegerSql, jsonMembersSql, jsonTextSql, jsonTimestampSql } from '../database/json-sql.js';
import { collectionByOwnerSql, EMPTY_COLLECTION_SQL } from '../database/nested-json.js';
import { FINANCIALS, type FinancialRecord } from './financial.presenter.js';
import { allColumnsOf } from '../database/entity-columns.js';
import { Person } from './entities/person.entity.js';

/** The person columns a record needs; the first name still encrypted. */
export const PERSON_COLUMNS = allColumnsOf(Person, 'p');

/** A person's row as its table holds it (a retrieve reads it so, before its record). */
export interface PlainPersonRow {
  id: string;
  enterprise_id: string | null;
}

/**
 * A person as its reads select it: the record written as JSON by PostgreSQL in two parts, around
 * the first name, which is stored encrypted and decrypted here.
 */
export interface PersonRow {
  id: string;
  enterprise_id: string | null;
  first_name_encrypted: string | null;
  /** `{"id":...` up to the first name. */
  json_head: string;
  /** `,"middle_name":...}` after it; labels still marked (`formatLabels`). */
  json_tail: string;
}

/** The canonical (v2) person, as its JSON reads. */
export interface PersonRecord {
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
  phone_numbers: Collection<PhoneNumberRecord>;
  emails: Collection<EmailRecord>;
  addresses: Collection<AddressRecord>;
  financials: Collection<FinancialRecord>;
}

export type { FinancialRecord } from './financial.presenter.js';

/** A person record as its JSON text. */
export type PersonJson = RecordJson<PersonRecord>;

const text = (column: string) => jsonTextSql(`p.${column}`);

/** A person's collections: key, rows, and the alias of their JSON by person in the statement. */
const NESTED = [
  ['phone_numbers', PHONE_NUMBERS, 'pn'],
  ['emails', EMAILS, 'em'],
  ['addresses', ADDRESSES, 'ad'],
  ['financials', FINANCIALS, 'fi'],
] as const;

const NESTED_CTES = NESTED.map(
  ([, collection, alias]) => `${alias} AS (${collectionByOwnerSql(collection, 'person_id', 'p')})`,
).join(',\n  ');

const NESTED_JOINS = NESTED.map(([, , alias]) => `LEFT JOIN ${alias} ON ${alias}.owner_id = p.id`).join(' ');

/** The members before the first name. */
const HEAD_SQL = `'{' || ${jsonMembersSql([
  ['id', text('id')],
  ['enterprise_id', text('enterprise_id')],
  ['title', text('title')],
])}`;

/** The members after the first name, nested rows oldest first then by id. */
const TAIL_SQL = `${jsonMembersSql(
  [
    ['middle_name', text('middle_name')],
    ['last_name', text('last_name')],
    ['salutation', text('salutation')],
    ['maiden_name', text('maiden_name')],
    ['birthday', text('birthday')],
    ['gender', text('gender')],
    ['licence', text('licence')],
    ['licence_card', text('licence_card')],
    ['licence_state', text('licence_state')],
    ['licence_expiry', text('licence_expiry')],
    ['dependents', jsonIntegerSql('p.dependents')],
    ['dependents_ages', text('dependents_ages')],
    ['marital_status', text('marital_status')],
    ['residency_status', text('residency_status')],
    ['created_at', jsonTimestampSql('p.created_at')],
    ['updated_at', jsonTimestampSql('p.updated_at')],
    ...NESTED.map(([key, , alias]) => [key, `coalesce(${alias}.json, ${EMPTY_COLLECTION_SQL})`] as const),
  ],
  true,
)} || '}'`;

/**
 * The person record of each row a read selects (`selection`, all the person's columns under the
 * alias `p`), written by PostgreSQL: the one presenter of people, for every reader.
 */
export function personJsonSql(selection: string): string {
  return `WITH p AS MATERIALIZED (${selection}),
  ${NESTED_CTES}
  SELECT p.id, p.enterprise_id, p.created_at, p.first_name_encrypted,
    ${HEAD_SQL} AS json_head, ${TAIL_SQL} AS json_tail FROM p ${NESTED_JOINS}`;
}

/** The person record: its JSON with the decrypted first name put in and its labels formatted. */
export function presentPerson(row: PersonRow, cipher: FieldCipher): PersonJson {
  const firstName = JSON.stringify(cipher.decryptNullable(row.first_name_encrypted));
  return new RecordJson(row.id, `${row.json_head},"first_name":${firstName}${formatLabels(row.json_tail)}`);
}
