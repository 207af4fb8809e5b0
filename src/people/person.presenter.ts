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
import { jsonMembersSql } from '../database/json-sql.js';
import {
  collectionByOwnerSql,
  EMPTY_COLLECTION_SQL,
  membersJsonSql,
  storedMembersJsonSql,
  storedOrBuiltSql,
  versionOfSql,
  type NestedField,
} from '../database/nested-json.js';
import { FINANCIALS, type FinancialRecord } from './financial.presenter.js';
import { allColumnsOf } from '../database/entity-columns.js';
import { Person } from './entities/person.entity.js';

/**
 * The person columns a record needs, the first name still encrypted, and the stored JSON of its
 * own members (`PERSON_STORED_JSON`; generated columns, which the entity leaves out).
 */
export const PERSON_COLUMNS = `${allColumnsOf(Person, 'p')}, p.record_json_head, p.record_json_tail, p.record_json_version`;

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

/** A person's collections: key, rows, and the alias of their JSON by person in the statement. */
const NESTED = [
  ['phone_numbers', PHONE_NUMBERS, 'pn'],
  ['emails', EMAILS, 'em'],
  ['addresses', ADDRESSES, 'ad'],
  ['financials', FINANCIALS, 'fi'],
] as const;

/** The collections' CTEs, for the enterprise at the statement's placeholder `enterprise`. */
const nestedCtes = (enterprise: string): string =>
  NESTED.map(
    ([, collection, alias]) => `${alias} AS (${collectionByOwnerSql(collection, 'person_id', 'p', enterprise)})`,
  ).join(',\n  ');

const NESTED_JOINS = NESTED.map(([, , alias]) => `LEFT JOIN ${alias} ON ${alias}.owner_id = p.id`).join(' ');

const field = (column: string, as: 'text' | 'date' | 'integer' | 'timestamp' = 'text'): NestedField => ({
  key: column,
  column,
  as,
});

/** The members before the first name. */
const HEAD_FIELDS = [field('id'), field('enterprise_id'), field('title')];

/** The person's own members after the first name (the nested rows follow them). */
const TAIL_FIELDS = [
  ...['middle_name', 'last_name', 'salutation', 'maiden_name'].map((column) => field(column)),
  field('birthday', 'date'),
  ...['gender', 'licence', 'licence_card', 'licence_state'].map((column) => field(column)),
  field('licence_expiry', 'date'),
  field('dependents', 'integer'),
  ...['dependents_ages', 'marital_status', 'residency_status'].map((column) => field(column)),
  field('created_at', 'timestamp'),
  field('updated_at', 'timestamp'),
];

/**
 * A person keeps the JSON of its own members in generated columns, as nested rows keep theirs
 * (`storedJsonSql`): `record_json_head` (`{"id":...` up to the first name, which is stored
 * encrypted and put in by the service), `record_json_tail` (the members after it, before the
 * nested rows) and `record_json_version`. These are their expressions and version.
 */
const STORED_HEAD = `'{' || ${storedMembersJsonSql(HEAD_FIELDS)}`;
const STORED_TAIL = storedMembersJsonSql(TAIL_FIELDS, true);
export const PERSON_STORED_JSON = {
  head: STORED_HEAD,
  tail: STORED_TAIL,
  version: versionOfSql(STORED_HEAD, STORED_TAIL),
} as const;

/** The same members built from the columns of the row `p`. */
export const PERSON_BUILT_JSON = {
  head: `'{' || ${membersJsonSql(HEAD_FIELDS, 'p')}`,
  tail: membersJsonSql(TAIL_FIELDS, 'p', true),
};

const { version } = PERSON_STORED_JSON;

/** The members before the first name: stored when current, else built. */
const HEAD_SQL = storedOrBuiltSql('p', 'record_json_head', version, PERSON_BUILT_JSON.head);

/** The members after the first name, nested rows oldest first then by id. */
const TAIL_SQL = `${storedOrBuiltSql('p', 'record_json_tail', version, PERSON_BUILT_JSON.tail)} || ${jsonMembersSql(
  NESTED.map(([key, , alias]) => [key, `coalesce(${alias}.json, ${EMPTY_COLLECTION_SQL})`] as const),
  true,
)} || '}'`;

/**
 * The person record of each row a read selects (`selection`, all the person's columns under the
 * alias `p`, of the enterprise at the placeholder `enterprise`), written by PostgreSQL: the one
 * presenter of people, for every reader.
 */
export function personJsonSql(selection: string, enterprise: string): string {
  return `WITH p AS MATERIALIZED (${selection}),
  ${nestedCtes(enterprise)}
  SELECT p.id, p.enterprise_id, p.created_at, p.first_name_encrypted,
    ${HEAD_SQL} AS json_head, ${TAIL_SQL} AS json_tail FROM p ${NESTED_JOINS}`;
}

/** The person record: its JSON with the decrypted first name put in and its labels formatted. */
export function presentPerson(row: PersonRow, cipher: FieldCipher): PersonJson {
  const firstName = JSON.stringify(cipher.decryptNullable(row.first_name_encrypted));
  return new RecordJson(row.id, `${row.json_head},"first_name":${firstName}${formatLabels(row.json_tail)}`);
}
