import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, tenantDocument } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';
import { uuidArray } from '../../src/database/uuid-array.js';

const T0 = '2026-01-01T08:00:00.000Z';
const T1 = '2026-01-02T09:15:00.000Z';
const T2 = '2026-01-03T10:30:00.500Z';
const T3 = '2026-01-04T11:45:00.999Z';

const JANE = '10000000-0000-4000-8000-000000000001';
const EMPTY = '10000000-0000-4000-8000-000000000002';
const FOREIGN = '10000000-0000-4000-8000-000000000003';
const ORPHAN = '10000000-0000-4000-8000-000000000004';
const id = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PHONE = (n: number) => id('20000000', n);
const EMAIL = (n: number) => id('30000000', n);
const ADDRESS = (n: number) => id('40000000', n);
const FINANCIAL = (n: number) => id('50000000', n);

const { doc, tenant } = tenantDocument();
const OWN = tenant.enterpriseId;

/** Every field set, nested rows listed out of order, zero and negative amounts, three addresses. */
const fixture = {
  ...doc,
  people: [
    {
      id: JANE,
      enterprise_id: OWN,
      title: 'Ms',
      first_name: 'Jane',
      middle_name: 'Anne',
      last_name: 'Citizen',
      salutation: 'Jan',
      maiden_name: 'Smith',
      birthday: '1985-04-12',
      gender: 'Female',
      licence: '12345678',
      licence_card: 'C1234567',
      licence_state: 'New South Wales',
      licence_expiry: '2030-01-01',
      dependents: 2,
      dependents_ages: '4, 7',
      marital_status: 'Married',
      residency_status: 'Citizen',
      created_at: T2,
      updated_at: T3,
      phone_numbers: [
        { id: PHONE(2), type: 'hOME', number: '02 9000 0000', is_primary: false, created_at: T1, updated_at: T1 },
        { id: PHONE(1), type: 'mobile', number: '0400 000 000', is_primary: true, created_at: T1, updated_at: T2 },
        { id: PHONE(3), type: 'Work', number: '02 8000 0000', is_primary: 0, created_at: T0, updated_at: T0 },
      ],
      emails: [
        { id: EMAIL(2), address: 'j.citizen@work.example', is_primary: false, created_at: T2, updated_at: T2 },
        { id: EMAIL(1), address: 'jane@example.com', is_primary: true, created_at: T1, updated_at: T1 },
      ],
      addresses: [
        {
          id: ADDRESS(3),
          type: null,
          line1: null,
          line2: null,
          line3: null,
          suburb: null,
          state: null,
          postcode: null,
          created_at: T3,
          updated_at: T3,
        },
        {
          id: ADDRESS(2),
          type: 'Postal',
          address: 'PO Box 12, Parramatta NSW 2150',
          line1: 'PO Box 12',
          suburb: 'Parramatta',
          state: 'New South Wales',
          postcode: '2150',
          created_at: T2,
          updated_at: T2,
        },
        {
          id: ADDRESS(1),
          type: 'Residential',
          line1: '1 Main St',
          line2: 'Unit 4',
          line3: '',
          suburb: 'Sydney',
          state: 'New South Wales',
          postcode: '2000',
          created_at: T1,
          updated_at: T1,
        },
      ],
      financials: [
        { id: FINANCIAL(5), type: 'liability', amount: 250000, category: 'home loan', created_at: T3, updated_at: T3 },
        { id: FINANCIAL(2), type: 'expense', amount: '-120.50', category: 'rent', created_at: T1, updated_at: T1 },
        { id: FINANCIAL(3), type: 'asset', amount: '0', category: 'savings', created_at: T1, updated_at: T1 },
        { id: FINANCIAL(4), type: 'expense', amount: '0.01', category: null, created_at: T2, updated_at: T2 },
        {
          id: FINANCIAL(1),
          type: 'income',
          amount: '5200.00',
          category: 'salary and wages',
          created_at: T1,
          updated_at: T1,
        },
      ],
    },
    { id: EMPTY, enterprise_id: OWN, dependents: 0, created_at: T0, updated_at: T0 },
    { id: FOREIGN, enterprise_id: tenant.otherEnterpriseId, first_name: 'Otto', last_name: 'Other', created_at: T1 },
    { id: ORPHAN, enterprise_id: null, first_name: 'Orphan', created_at: T1 },
  ],
};

const JANE_V2 = {
  id: JANE,
  enterprise_id: OWN,
  title: 'Ms',
  first_name: 'Jane',
  middle_name: 'Anne',
  last_name: 'Citizen',
  salutation: 'Jan',
  maiden_name: 'Smith',
  birthday: '1985-04-12',
  gender: 'Female',
  licence: '12345678',
  licence_card: 'C1234567',
  licence_state: 'New South Wales',
  licence_expiry: '2030-01-01',
  dependents: 2,
  dependents_ages: '4, 7',
  marital_status: 'Married',
  residency_status: 'Citizen',
  created_at: T2,
  updated_at: T3,
  phone_numbers: {
    data: [
      { id: PHONE(3), type: 'Work', number: '02 8000 0000', is_primary: false, created_at: T0, updated_at: T0 },
      { id: PHONE(1), type: 'Mobile', number: '0400 000 000', is_primary: true, created_at: T1, updated_at: T2 },
      { id: PHONE(2), type: 'HOME', number: '02 9000 0000', is_primary: false, created_at: T1, updated_at: T1 },
    ],
  },
  emails: {
    data: [
      { id: EMAIL(1), address: 'jane@example.com', is_primary: true, created_at: T1, updated_at: T1 },
      { id: EMAIL(2), address: 'j.citizen@work.example', is_primary: false, created_at: T2, updated_at: T2 },
    ],
  },
  addresses: {
    data: [
      {
        id: ADDRESS(1),
        type: 'Residential',
        address: '1 Main St, Unit 4, Sydney, New South Wales, 2000',
        line1: '1 Main St',
        line2: 'Unit 4',
        line3: '',
        suburb: 'Sydney',
        state: 'New South Wales',
        postcode: '2000',
        created_at: T1,
        updated_at: T1,
      },
      {
        id: ADDRESS(2),
        type: 'Postal',
        address: 'PO Box 12, Parramatta NSW 2150',
        line1: 'PO Box 12',
        line2: null,
        line3: null,
        suburb: 'Parramatta',
        state: 'New South Wales',
        postcode: '2150',
        created_at: T2,
        updated_at: T2,
      },
      {
        id: ADDRESS(3),
        type: null,
        address: null,
        line1: null,
        line2: null,
        line3: null,
        suburb: null,
        state: null,
        postcode: null,
        created_at: T3,
        updated_at: T3,
      },
    ],
  },
  financials: {
    data: [
      {
        id: FINANCIAL(1),
        type: 'Income',
        amount: '5200.00',
        category: 'Salary And Wages',
        created_at: T1,
        updated_at: T1,
      },
      { id: FINANCIAL(4), type: 'Expense', amount: '0.01', category: null, created_at: T2, updated_at: T2 },
      {
        id: FINANCIAL(5),
        type: 'Liability',
        amount: '250000.00',
        category: 'Home Loan',
        created_at: T3,
        updated_at: T3,
      },
    ],
  },
};

const EMPTY_V2 = {
  id: EMPTY,
  enterprise_id: OWN,
  title: null,
  first_name: null,
  middle_name: null,
  last_name: null,
  salutation: null,
  maiden_name: null,
  birthday: null,
  gender: null,
  licence: null,
  licence_card: null,
  licence_state: null,
  licence_expiry: null,
  dependents: 0,
  dependents_ages: null,
  marital_status: null,
  residency_status: null,
  created_at: T0,
  updated_at: T0,
  phone_numbers: { data: [] },
  emails: { data: [] },
  addresses: { data: [] },
  financials: { data: [] },
};

/** v1 casing: PascalCase on the record, nested rows keep lowercase timestamps, `data` stays. */
const JANE_V1 = {
  ID: JANE,
  EnterpriseID: OWN,
  Title: 'Ms',
  FirstName: 'Jane',
  MiddleName: 'Anne',
  LastName: 'Citizen',
  Salutation: 'Jan',
  MaidenName: 'Smith',
  Birthday: '1985-04-12',
  Gender: 'Female',
  Licence: '12345678',
  LicenceCard: 'C1234567',
  LicenceState: 'New South Wales',
  LicenceExpiry: '2030-01-01',
  Dependents: 2,
  DependentsAges: '4, 7',
  MaritalStatus: 'Married',
  ResidencyStatus: 'Citizen',
  CreatedAt: T2,
  UpdatedAt: T3,
  PhoneNumbers: {
    data: [
      { ID: PHONE(3), Type: 'Work', Number: '02 8000 0000', IsPrimary: false, created_at: T0, updated_at: T0 },
      { ID: PHONE(1), Type: 'Mobile', Number: '0400 000 000', IsPrimary: true, created_at: T1, updated_at: T2 },
      { ID: PHONE(2), Type: 'HOME', Number: '02 9000 0000', IsPrimary: false, created_at: T1, updated_at: T1 },
    ],
  },
  Emails: {
    data: [
      { ID: EMAIL(1), Address: 'jane@example.com', IsPrimary: true, created_at: T1, updated_at: T1 },
      { ID: EMAIL(2), Address: 'j.citizen@work.example', IsPrimary: false, created_at: T2, updated_at: T2 },
    ],
  },
  Addresses: {
    data: [
      {
        ID: ADDRESS(1),
        Type: 'Residential',
        Address: '1 Main St, Unit 4, Sydney, New South Wales, 2000',
        Line1: '1 Main St',
        Line2: 'Unit 4',
        Line3: '',
        Suburb: 'Sydney',
        State: 'New South Wales',
        Postcode: '2000',
        created_at: T1,
        updated_at: T1,
      },
      {
        ID: ADDRESS(2),
        Type: 'Postal',
        Address: 'PO Box 12, Parramatta NSW 2150',
        Line1: 'PO Box 12',
        Line2: null,
        Line3: null,
        Suburb: 'Parramatta',
        State: 'New South Wales',
        Postcode: '2150',
        created_at: T2,
        updated_at: T2,
      },
      {
        ID: ADDRESS(3),
        Type: null,
        Address: null,
        Line1: null,
        Line2: null,
        Line3: null,
        Suburb: null,
        State: null,
        Postcode: null,
        created_at: T3,
        updated_at: T3,
      },
    ],
  },
  Financials: {
    data: [
      {
        ID: FINANCIAL(1),
        Type: 'Income',
        Amount: '5200.00',
        Category: 'Salary And Wages',
        created_at: T1,
        updated_at: T1,
      },
      { ID: FINANCIAL(4), Type: 'Expense', Amount: '0.01', Category: null, created_at: T2, updated_at: T2 },
      {
        ID: FINANCIAL(5),
        Type: 'Liability',
        Amount: '250000.00',
        Category: 'Home Loan',
        created_at: T3,
        updated_at: T3,
      },
    ],
  },
};

const EMPTY_V1 = {
  ID: EMPTY,
  EnterpriseID: OWN,
  Title: null,
  FirstName: null,
  MiddleName: null,
  LastName: null,
  Salutation: null,
  MaidenName: null,
  Birthday: null,
  Gender: null,
  Licence: null,
  LicenceCard: null,
  LicenceState: null,
  LicenceExpiry: null,
  Dependents: 0,
  DependentsAges: null,
  MaritalStatus: null,
  ResidencyStatus: null,
  CreatedAt: T0,
  UpdatedAt: T0,
  PhoneNumbers: { data: [] },
  Emails: { data: [] },
  Addresses: { data: [] },
  Financials: { data: [] },
};

const pageOf = (version: 'v1' | 'v2', data: unknown[]) => {
  const path = `http://localhost:80/api/${version}/people`;
  return {
    data,
    links: { first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null },
    meta: { current_page: 1, from: 1, to: data.length, last_page: 1, path, per_page: 100, total: data.length },
  };
};

describe('people', () => {
  let t: TestApp;
  let token: string;

  const suite = apiSuite({ fixture: { doc: fixture, tenant } });
  beforeAll(() => void ({ t, token } = suite));

  const get = (version: 'v1' | 'v2', path: string) =>
    t.app.inject({ method: 'GET', url: `/api/${version}${path}`, headers: apiHeaders(version, token, OWN) });

  it('stores the first name encrypted, never in plain text', async () => {
    const [row] = await t.dataSource.query<{ first_name_encrypted: string }[]>(
      'SELECT first_name_encrypted FROM people WHERE id = $1',
      [JANE],
    );
    expect(row?.first_name_encrypted).toMatch(/^enc:v1:/);
    expect(row?.first_name_encrypted).not.toContain('Jane');
  });

  it('a batch of ids written as one array literal selects what pg’s array parameter selects', async () => {
    const sql = 'SELECT id FROM phone_numbers WHERE id = ANY($1::uuid[]) ORDER BY id';
    const ids = [PHONE(2), PHONE(1).toUpperCase(), PHONE(3), '10000000-0000-4000-8000-00000000ffff'];
    const literal = uuidArray(ids);
    expect(typeof literal).toBe('string');
    const byLiteral = await t.dataSource.query<{ id: string }[]>(sql, [literal]);
    expect(byLiteral).toEqual(await t.dataSource.query(sql, [ids]));
    expect(byLiteral.map((row) => row.id)).toEqual([PHONE(1), PHONE(2), PHONE(3)]);
    // A list with one id that is not a uuid goes to pg as it is, and is refused as before.
    const odd = [PHONE(1), `${PHONE(2)},${PHONE(3)}`];
    expect(uuidArray(odd)).toBe(odd);
    await expect(t.dataSource.query(sql, [uuidArray(odd)])).rejects.toThrow(/invalid input syntax for type uuid/);
  });

  it('v2 lists the enterprise’s people newest first with every field, exact body', async () => {
    const res = await get('v2', '/people');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual(pageOf('v2', [JANE_V2, EMPTY_V2]));
  });

  it('v1 lists them in v1 casing, exact body', async () => {
    const res = await get('v1', '/people');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual(pageOf('v1', [JANE_V1, EMPTY_V1]));
  });

  it('v2 retrieves one person, exact body', async () => {
    const res = await get('v2', `/people/${JANE}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual({ data: JANE_V2 });
  });

  it('v1 retrieves one person, exact body', async () => {
    const res = await get('v1', `/people/${JANE}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual({ data: JANE_V1 });
  });

  it('retrieves with an upper-case id', async () => {
    const res = await get('v2', `/people/${EMPTY.toUpperCase()}`);
    expect(res.json()).toStrictEqual({ data: EMPTY_V2 });
  });

  it.each(['v1', 'v2'] as const)('%s: a person of another enterprise is 403 with none of its data', async (version) => {
    const res = await get(version, `/people/${FOREIGN}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
  });

  it('a person of no enterprise is 403', async () => {
    const res = await get('v2', `/people/${ORPHAN}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
  });
});
