import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { isoTimestamp } from '../../src/common/http/iso-timestamp.js';
import { JsonText, serialiseJson } from '../../src/database/json-text.js';
import { jsonTimestampSql } from '../../src/database/json-sql.js';
import {
  collectionByOwnerSql,
  rowJsonSql,
  storedJsonVersion,
  type NestedCollection,
} from '../../src/database/nested-json.js';
import { ADDRESSES, EMAILS, PHONE_NUMBERS } from '../../src/contacts/contact.presenter.js';
import { FINANCIALS } from '../../src/people/financial.presenter.js';
import { PERSON_BUILT_JSON, PERSON_STORED_JSON } from '../../src/people/person.presenter.js';
import {
  ORGANISATION_COLUMNS,
  presentOrganisation,
  type OrganisationRow,
} from '../../src/organisations/organisation.presenter.js';
import { apiSuite } from '../helpers/api-suite.js';
import {
  oldestFirst,
  referenceAddress,
  referenceEmail,
  referencePerson,
  referencePhone,
  type PlainAddressRow,
  type PlainEmailRow,
  type PlainFinancialRow,
  type PlainNestedRows,
  type PlainPersonRow,
  type PlainPhoneRow,
} from '../helpers/reference-records.js';

/**
 * People, and the contact rows of organisations, are written as JSON by PostgreSQL. These cases
 * hold that JSON to the records the service built in JavaScript before (test/helpers/reference-
 * records.ts), byte for byte, over generated rows: any text (quotes, backslashes, control
 * characters, letters whose upper case is longer, other whitespace), labels the JS formatting
 * changes in every way, timestamps from 4713 BC to the last year a JS Date holds with any
 * microseconds, dates, integers and amounts at their edges, nulls everywhere they are allowed.
 */

const NUMBER_OF_CASES = 30;

/** Text PostgreSQL can hold (no NUL, no lone surrogate), some of it in the awkward corners. */
const anyText = (maxLength = 12) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }).map((text) => text.replaceAll('\u0000', '')),
    fc.constantFrom(
      '',
      ' ',
      'ß straße',
      'ŉ',
      'istanbul i',
      '\u00a0leading nbsp',
      'tab\there',
      'line\nbreak',
      'quote " and \\ backslash',
      '\u0001\u001f\u007f control',
      'emoji 😀 word',
      'ǆemal',
      'mobile',
      'hOME',
      'salary and wages',
      '\u2028\u2029 separators',
      'ﬁsh',
    ),
  );
const nullable = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });

/** Microseconds since 1970: 4713 BC (PostgreSQL's first day) to 275760 (the last a JS Date holds). */
const FIRST_MICROS = -210_866_760_000_000_000n;
const LAST_MICROS = 8_639_999_999_999_999_999n;
/**
 * 0000-01-01 (1 BC) to the end of 9999: the years answers are documented to have. The tables keep
 * milliseconds (rounded), so the last instant is the last one that does not round into 10000.
 */
const FIRST_WRITTEN_MICROS = -62_167_219_200_000_000n;
const LAST_WRITTEN_MICROS = 253_402_300_799_999_499n;
const instant = fc.oneof(
  fc.bigInt({ min: FIRST_WRITTEN_MICROS, max: LAST_WRITTEN_MICROS }),
  fc.constantFrom(
    0n,
    -1n,
    FIRST_WRITTEN_MICROS,
    -62_135_596_800_000_001n,
    LAST_WRITTEN_MICROS,
    1_767_225_600_123_456n,
    1_767_225_600_999_999n,
  ),
);
/** A `date` as text, AD years 1-9999 (the documented format). */
const date = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const integer = nullable(fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2147483647, -2147483648)));
const amount = fc.oneof(
  fc.bigInt({ min: -99_999_999_999_99n, max: 99_999_999_999_99n }).map((cents) => (Number(cents) / 100).toFixed(2)),
  fc.constantFrom('0.00', '0.01', '-0.01', '999999999999.99'),
);
const flag = fc.constantFrom(0, 1);

const stamps = fc.record({ created: instant, updated: instant });
const phone = fc.record({ type: anyText(), number: anyText(), is_primary: flag, at: stamps });
const email = fc.record({ address: anyText(), is_primary: flag, at: stamps });
const address = fc.record({
  type: nullable(anyText()),
  address: nullable(anyText(30)),
  line1: nullable(anyText()),
  line2: nullable(anyText()),
  line3: nullable(anyText()),
  suburb: nullable(anyText()),
  state: nullable(anyText()),
  postcode: nullable(anyText(4)),
  at: stamps,
});
const financial = fc.record({ type: anyText(), amount, category: nullable(anyText()), at: stamps });
/** Some nested rows share their instants, as the rows of one import do. */
const contacts = {
  phones: fc.array(phone, { maxLength: 4 }),
  emails: fc.array(email, { maxLength: 3 }),
  addresses: fc.array(address, { maxLength: 3 }),
};
const person = fc.record({
  first_name: nullable(anyText()),
  title: nullable(anyText()),
  middle_name: nullable(anyText()),
  last_name: nullable(anyText()),
  salutation: nullable(anyText()),
  maiden_name: nullable(anyText()),
  birthday: nullable(date),
  gender: nullable(anyText()),
  licence: nullable(anyText()),
  licence_card: nullable(anyText()),
  licence_state: nullable(anyText()),
  licence_expiry: nullable(date),
  dependents: integer,
  dependents_ages: nullable(anyText()),
  marital_status: nullable(anyText()),
  residency_status: nullable(anyText()),
  at: stamps,
  ...contacts,
  financials: fc.array(financial, { maxLength: 4 }),
});
const organisation = fc.record({ legal_name: anyText(), at: stamps, ...contacts });

/**
 * A timestamptz from microseconds since 1970 (a bigint expression), exactly: whole days, then the
 * microseconds left (each small enough for the float an interval is multiplied by).
 */
const instantSql = (micros: string) =>
  `(('1970-01-01 00:00:00'::timestamp + (${micros} / 86400000000) * interval '1 day' + (${micros} % 86400000000) * interval '1 microsecond') AT TIME ZONE 'UTC')`;
const AT = (n: number) => instantSql(`$${n}::bigint`);

describe('records written by PostgreSQL are the records the service built in JavaScript', () => {
  const s = apiSuite();

  async function sql<T = unknown>(text: string, parameters: unknown[]): Promise<T[]> {
    return s.t.dataSource.query<T[]>(text, parameters);
  }

  type Stamps = { created: bigint; updated: bigint };
  const at = (stamp: Stamps) => [stamp.created.toString(), stamp.updated.toString()];

  async function insertContacts(
    owner: 'person_id' | 'organisation_id',
    ownerId: string,
    rows: {
      phones: { type: string; number: string; is_primary: number; at: Stamps }[];
      emails: { address: string; is_primary: number; at: Stamps }[];
      addresses: Record<string, unknown>[];
    },
  ): Promise<void> {
    for (const p of rows.phones) {
      await sql(
        `INSERT INTO phone_numbers (id, ${owner}, type, number, is_primary, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, ${AT(6)}, ${AT(7)})`,
        [randomUUID(), ownerId, p.type, p.number, p.is_primary, ...at(p.at)],
      );
    }
    for (const e of rows.emails) {
      await sql(
        `INSERT INTO emails (id, ${owner}, address, is_primary, created_at, updated_at)
         VALUES ($1, $2, $3, $4, ${AT(5)}, ${AT(6)})`,
        [randomUUID(), ownerId, e.address, e.is_primary, ...at(e.at)],
      );
    }
    for (const a of rows.addresses) {
      await sql(
        `INSERT INTO addresses (id, ${owner}, type, address, line1, line2, line3, suburb, state, postcode, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ${AT(11)}, ${AT(12)})`,
        [
          randomUUID(),
          ownerId,
          a.type,
          a.address,
          a.line1,
          a.line2,
          a.line3,
          a.suburb,
          a.state,
          a.postcode,
          ...at(a.at as Stamps),
        ],
      );
    }
  }

  async function plainContacts(owner: 'person_id' | 'organisation_id', ownerId: string) {
    return {
      phones: await sql<PlainPhoneRow>(`SELECT * FROM phone_numbers WHERE ${owner} = $1`, [ownerId]),
      emails: await sql<PlainEmailRow>(`SELECT * FROM emails WHERE ${owner} = $1`, [ownerId]),
      addresses: await sql<PlainAddressRow>(`SELECT * FROM addresses WHERE ${owner} = $1`, [ownerId]),
    };
  }

  const NESTED: readonly NestedCollection[] = [PHONE_NUMBERS, EMAILS, ADDRESSES, FINANCIALS];

  /**
   * Each nested row of the owner keeps, in its generated `record_json`, the JSON the reads build
   * from its columns, of the version this code reads (else reads would build it every time); a
   * person keeps its own members' JSON the same way.
   */
  async function expectStoredJsonBuilt(owner: 'person_id' | 'organisation_id', ownerId: string): Promise<void> {
    if (owner === 'person_id') {
      const [person] = await sql<{
        head: string;
        tail: string;
        version: number;
        built_head: string;
        built_tail: string;
      }>(
        `SELECT p.record_json_head AS head, p.record_json_tail AS tail, p.record_json_version AS version,
                ${PERSON_BUILT_JSON.head} AS built_head, ${PERSON_BUILT_JSON.tail} AS built_tail
           FROM people p WHERE p.id = $1`,
        [ownerId],
      );
      expect(person?.head).toBe(person?.built_head);
      expect(person?.tail).toBe(person?.built_tail);
      expect(person?.version).toBe(PERSON_STORED_JSON.version);
    }
    for (const collection of NESTED) {
      if (owner === 'organisation_id' && collection === FINANCIALS) continue;
      const rows = await sql<{ stored: string; version: number; built: string }>(
        `SELECT x.record_json AS stored, x.record_json_version AS version, ${rowJsonSql(collection)} AS built
           FROM ${collection.table} x WHERE x.${owner} = $1`,
        [ownerId],
      );
      for (const row of rows) {
        expect(row.stored).toBe(row.built);
        expect(row.version).toBe(storedJsonVersion(collection));
      }
    }
  }

  async function get(path: string): Promise<string> {
    const res = await s.t.app.inject({ method: 'GET', url: path, headers: s.headers('v2') });
    expect(res.statusCode).toBe(200);
    return res.body;
  }

  it('people: every field and nested row, read by id, in a list and in the change feed', async () => {
    await fc.assert(
      fc.asyncProperty(person, async (p) => {
        const id = randomUUID();
        await sql(
          `INSERT INTO people (id, enterprise_id, title, first_name_encrypted, middle_name, last_name, salutation,
             maiden_name, birthday, gender, licence, licence_card, licence_state, licence_expiry, dependents,
             dependents_ages, marital_status, residency_status, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, ${AT(19)}, ${AT(20)})`,
          [
            id,
            s.tenant.enterpriseId,
            p.title,
            s.t.cipher.encryptNullable(p.first_name),
            p.middle_name,
            p.last_name,
            p.salutation,
            p.maiden_name,
            p.birthday,
            p.gender,
            p.licence,
            p.licence_card,
            p.licence_state,
            p.licence_expiry,
            p.dependents,
            p.dependents_ages,
            p.marital_status,
            p.residency_status,
            ...at(p.at),
          ],
        );
        await insertContacts('person_id', id, p);
        for (const f of p.financials) {
          await sql(
            `INSERT INTO financials (id, person_id, type, amount, category, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, ${AT(6)}, ${AT(7)})`,
            [randomUUID(), id, f.type, f.amount, f.category, ...at(f.at)],
          );
        }
        const [row] = await sql<PlainPersonRow>('SELECT * FROM people WHERE id = $1', [id]);
        if (!row) throw new Error('the person was not written');
        const nested: PlainNestedRows = {
          ...(await plainContacts('person_id', id)),
          financials: await sql<PlainFinancialRow>('SELECT * FROM financials WHERE person_id = $1 AND amount > 0', [
            id,
          ]),
        };
        const expected = JSON.stringify(referencePerson(row, p.first_name, nested));
        expect(await get(`/api/v2/people/${id}`)).toBe(`{"data":${expected}}`);
        await expectStoredJsonBuilt('person_id', id);
        const feed = await get(`/api/v2/changes?types=person&limit=500`);
        expect(feed).toContain(`"record":${expected}`);
      }),
      { numRuns: NUMBER_OF_CASES },
    );
  });

  it('a timestamp of any year PostgreSQL and a JS Date both hold is written as toISOString writes it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(instant, fc.bigInt({ min: FIRST_MICROS, max: LAST_MICROS })), {
          minLength: 1,
          maxLength: 50,
        }),
        async (micros) => {
          const rows = await sql<{ t: Date; json: string; stored: string }>(
            `SELECT t, ${jsonTimestampSql('t')} AS json, record_json_timestamp(t) AS stored
               FROM (SELECT ${instantSql('m')} AS t FROM unnest($1::bigint[]) AS m) s`,
            [micros.map(String)],
          );
          for (const row of rows) {
            expect(row.json).toBe(JSON.stringify(isoTimestamp(row.t)));
            expect(row.stored).toBe(row.json);
          }
        },
      ),
      { numRuns: NUMBER_OF_CASES },
    );
  });

  it("a nested row's stored JSON follows its UPDATEs, and a read of another version builds the JSON", async () => {
    const person = randomUUID();
    await sql(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Stored')`, [
      person,
      s.tenant.enterpriseId,
    ]);
    await insertContacts('person_id', person, {
      phones: [{ type: 'mobile', number: '0400 000 001', is_primary: 1, at: { created: 0n, updated: 0n } }],
      emails: [],
      addresses: [],
    });
    await sql(`UPDATE phone_numbers SET number = 'say "hi"\\', type = 'work' WHERE person_id = $1`, [person]);
    await expectStoredJsonBuilt('person_id', person);
    const [phone] = await sql<{ stored: string }>(
      `SELECT record_json AS stored FROM phone_numbers WHERE person_id = $1`,
      [person],
    );
    expect(phone?.stored).toContain(`"number":"say \\"hi\\"\\\\"`);

    // Code whose JSON differs (here: ids only) has another version: it builds, never copies.
    const idsOnly: NestedCollection = { ...PHONE_NUMBERS, fields: PHONE_NUMBERS.fields.slice(0, 1) };
    expect(storedJsonVersion(idsOnly)).not.toBe(storedJsonVersion(PHONE_NUMBERS));
    const [read] = await sql<{ json: string }>(
      collectionByOwnerSql(idsOnly, 'person_id', '(VALUES ($1::uuid)) AS o(id)', '$2'),
      [person, s.tenant.enterpriseId],
    );
    expect(read?.json).toMatch(/^\{"data":\[\{"id":"[0-9a-f-]{36}"\}\]\}$/);
  });

  it('organisations: their phone numbers, emails and addresses', async () => {
    await fc.assert(
      fc.asyncProperty(organisation, async (o) => {
        const id = randomUUID();
        await sql(
          `INSERT INTO organisations (id, enterprise_id, legal_name, gst_registered, created_at, updated_at)
           VALUES ($1, $2, $3, 0, ${AT(4)}, ${AT(5)})`,
          [id, s.tenant.enterpriseId, o.legal_name, ...at(o.at)],
        );
        await insertContacts('organisation_id', id, o);
        await expectStoredJsonBuilt('organisation_id', id);
        const [row] = await sql<OrganisationRow>(`SELECT ${ORGANISATION_COLUMNS} FROM organisations o WHERE id = $1`, [
          id,
        ]);
        if (!row) throw new Error('the organisation was not written');
        const plain = await plainContacts('organisation_id', id);
        const expected = serialiseJson({
          data: presentOrganisation(row, {
            phone_numbers: new JsonText(JSON.stringify({ data: oldestFirst(plain.phones).map(referencePhone) })),
            emails: new JsonText(JSON.stringify({ data: oldestFirst(plain.emails).map(referenceEmail) })),
            addresses: new JsonText(JSON.stringify({ data: oldestFirst(plain.addresses).map(referenceAddress) })),
          }),
        });
        expect(await get(`/api/v2/organisations/${id}`)).toBe(expected);
      }),
      { numRuns: NUMBER_OF_CASES },
    );
  });
});
