import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, tenantDocument } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const T0 = '2025-12-31T23:59:59.999Z';
const T1 = '2026-02-01T09:00:00.000Z';
const T2 = '2026-02-02T09:00:00.250Z';

const ACME = '11000000-0000-4000-8000-000000000001';
const BARE = '11000000-0000-4000-8000-000000000002';
const FOREIGN = '11000000-0000-4000-8000-000000000003';
const PHONE = (n: number) => `21000000-0000-4000-8000-00000000000${n}`;
const EMAIL = (n: number) => `31000000-0000-4000-8000-00000000000${n}`;
const ADDRESS = (n: number) => `41000000-0000-4000-8000-00000000000${n}`;

const { doc, tenant } = tenantDocument();
const OWN = tenant.enterpriseId;

const fixture = {
  ...doc,
  organisations: [
    {
      id: ACME,
      enterprise_id: OWN,
      legal_name: 'Acme Pty Ltd',
      legal_structure: 'Company',
      short_name: 'Acme',
      trust_name: 'Acme Family Trust',
      acn: '000000019',
      abn: '53004085616',
      entity_type: 'Australian Private Company',
      abn_registration: '2001-07-01',
      abn_status: 'Active',
      gst_registered: true,
      gst_date: '2001-07-02',
      business_name: 'Acme Tools',
      business_name2: 'Acme Hire',
      business_name3: 'Acme Parts',
      former_name: 'Acme Holdings',
      former_name2: 'Acme Group',
      former_name3: 'Acme & Sons',
      description: 'Tools and hire.\nSince 2001.',
      established_date: '2001-06-30',
      employees_count: 12,
      industry: 'Construction',
      website: 'https://acme.example',
      created_at: T1,
      updated_at: T2,
      phone_numbers: [
        { id: PHONE(2), type: 'fax', number: '02 9111 1112', is_primary: false, created_at: T1, updated_at: T1 },
        { id: PHONE(1), type: 'office', number: '02 9111 1111', is_primary: true, created_at: T1, updated_at: T1 },
      ],
      emails: [{ id: EMAIL(1), address: 'accounts@acme.example', is_primary: true, created_at: T1, updated_at: T2 }],
      addresses: [
        {
          id: ADDRESS(2),
          type: 'Registered',
          line1: 'Level 3',
          line2: '10 George St',
          line3: 'Building B',
          suburb: 'Brisbane',
          state: 'Queensland',
          postcode: '4000',
          created_at: T2,
          updated_at: T2,
        },
        {
          id: ADDRESS(1),
          type: 'Trading',
          line1: '5 Yard Rd',
          suburb: 'Ipswich',
          state: null,
          postcode: null,
          created_at: T1,
          updated_at: T1,
        },
      ],
    },
    { id: BARE, enterprise_id: OWN, legal_name: 'Bare Co', employees_count: 0, created_at: T0, updated_at: T0 },
    { id: FOREIGN, enterprise_id: tenant.otherEnterpriseId, legal_name: 'Foreign Secret Pty Ltd', created_at: T2 },
  ],
};

const ACME_V2 = {
  id: ACME,
  enterprise_id: OWN,
  legal_name: 'Acme Pty Ltd',
  legal_structure: 'Company',
  short_name: 'Acme',
  trust_name: 'Acme Family Trust',
  acn: '000000019',
  abn: '53004085616',
  entity_type: 'Australian Private Company',
  abn_registration: '2001-07-01',
  abn_status: 'Active',
  gst_registered: true,
  gst_date: '2001-07-02',
  business_name: 'Acme Tools',
  business_name2: 'Acme Hire',
  business_name3: 'Acme Parts',
  former_name: 'Acme Holdings',
  former_name2: 'Acme Group',
  former_name3: 'Acme & Sons',
  description: 'Tools and hire.\nSince 2001.',
  established_date: '2001-06-30',
  employees_count: 12,
  industry: 'Construction',
  website: 'https://acme.example',
  created_at: T1,
  updated_at: T2,
  phone_numbers: {
    data: [
      { id: PHONE(1), type: 'Office', number: '02 9111 1111', is_primary: true, created_at: T1, updated_at: T1 },
      { id: PHONE(2), type: 'Fax', number: '02 9111 1112', is_primary: false, created_at: T1, updated_at: T1 },
    ],
  },
  emails: {
    data: [{ id: EMAIL(1), address: 'accounts@acme.example', is_primary: true, created_at: T1, updated_at: T2 }],
  },
  addresses: {
    data: [
      {
        id: ADDRESS(1),
        type: 'Trading',
        address: '5 Yard Rd, Ipswich',
        line1: '5 Yard Rd',
        line2: null,
        line3: null,
        suburb: 'Ipswich',
        state: null,
        postcode: null,
        created_at: T1,
        updated_at: T1,
      },
      {
        id: ADDRESS(2),
        type: 'Registered',
        address: 'Level 3, 10 George St, Building B, Brisbane, Queensland, 4000',
        line1: 'Level 3',
        line2: '10 George St',
        line3: 'Building B',
        suburb: 'Brisbane',
        state: 'Queensland',
        postcode: '4000',
        created_at: T2,
        updated_at: T2,
      },
    ],
  },
};

const BARE_V2 = {
  id: BARE,
  enterprise_id: OWN,
  legal_name: 'Bare Co',
  legal_structure: null,
  short_name: null,
  trust_name: null,
  acn: null,
  abn: null,
  entity_type: null,
  abn_registration: null,
  abn_status: null,
  gst_registered: false,
  gst_date: null,
  business_name: null,
  business_name2: null,
  business_name3: null,
  former_name: null,
  former_name2: null,
  former_name3: null,
  description: null,
  established_date: null,
  employees_count: 0,
  industry: null,
  website: null,
  created_at: T0,
  updated_at: T0,
  phone_numbers: { data: [] },
  emails: { data: [] },
  addresses: { data: [] },
};

const ACME_V1 = {
  ID: ACME,
  EnterpriseID: OWN,
  LegalName: 'Acme Pty Ltd',
  LegalStructure: 'Company',
  ShortName: 'Acme',
  TrustName: 'Acme Family Trust',
  Acn: '000000019',
  Abn: '53004085616',
  EntityType: 'Australian Private Company',
  AbnRegistration: '2001-07-01',
  AbnStatus: 'Active',
  GstRegistered: true,
  GstDate: '2001-07-02',
  BusinessName: 'Acme Tools',
  BusinessName2: 'Acme Hire',
  BusinessName3: 'Acme Parts',
  FormerName: 'Acme Holdings',
  FormerName2: 'Acme Group',
  FormerName3: 'Acme & Sons',
  Description: 'Tools and hire.\nSince 2001.',
  EstablishedDate: '2001-06-30',
  EmployeesCount: 12,
  Industry: 'Construction',
  Website: 'https://acme.example',
  CreatedAt: T1,
  UpdatedAt: T2,
  PhoneNumbers: {
    data: [
      { ID: PHONE(1), Type: 'Office', Number: '02 9111 1111', IsPrimary: true, created_at: T1, updated_at: T1 },
      { ID: PHONE(2), Type: 'Fax', Number: '02 9111 1112', IsPrimary: false, created_at: T1, updated_at: T1 },
    ],
  },
  Emails: {
    data: [{ ID: EMAIL(1), Address: 'accounts@acme.example', IsPrimary: true, created_at: T1, updated_at: T2 }],
  },
  Addresses: {
    data: [
      {
        ID: ADDRESS(1),
        Type: 'Trading',
        Address: '5 Yard Rd, Ipswich',
        Line1: '5 Yard Rd',
        Line2: null,
        Line3: null,
        Suburb: 'Ipswich',
        State: null,
        Postcode: null,
        created_at: T1,
        updated_at: T1,
      },
      {
        ID: ADDRESS(2),
        Type: 'Registered',
        Address: 'Level 3, 10 George St, Building B, Brisbane, Queensland, 4000',
        Line1: 'Level 3',
        Line2: '10 George St',
        Line3: 'Building B',
        Suburb: 'Brisbane',
        State: 'Queensland',
        Postcode: '4000',
        created_at: T2,
        updated_at: T2,
      },
    ],
  },
};

const BARE_V1 = {
  ID: BARE,
  EnterpriseID: OWN,
  LegalName: 'Bare Co',
  LegalStructure: null,
  ShortName: null,
  TrustName: null,
  Acn: null,
  Abn: null,
  EntityType: null,
  AbnRegistration: null,
  AbnStatus: null,
  GstRegistered: false,
  GstDate: null,
  BusinessName: null,
  BusinessName2: null,
  BusinessName3: null,
  FormerName: null,
  FormerName2: null,
  FormerName3: null,
  Description: null,
  EstablishedDate: null,
  EmployeesCount: 0,
  Industry: null,
  Website: null,
  CreatedAt: T0,
  UpdatedAt: T0,
  PhoneNumbers: { data: [] },
  Emails: { data: [] },
  Addresses: { data: [] },
};

const pageOf = (version: 'v1' | 'v2', data: unknown[]) => {
  const path = `http://localhost:80/api/${version}/organisations`;
  return {
    data,
    links: { first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null },
    meta: { current_page: 1, from: 1, to: data.length, last_page: 1, path, per_page: 100, total: data.length },
  };
};

describe('organisations', () => {
  let t: TestApp;
  let token: string;

  const suite = apiSuite({ fixture: { doc: fixture, tenant } });
  beforeAll(() => void ({ t, token } = suite));

  const get = (version: 'v1' | 'v2', path: string) =>
    t.app.inject({ method: 'GET', url: `/api/${version}${path}`, headers: apiHeaders(version, token, OWN) });

  it('v2 lists the enterprise’s organisations newest first, exact body', async () => {
    const res = await get('v2', '/organisations');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual(pageOf('v2', [ACME_V2, BARE_V2]));
  });

  it('v1 lists them in v1 casing, exact body', async () => {
    const res = await get('v1', '/organisations');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual(pageOf('v1', [ACME_V1, BARE_V1]));
  });

  it.each([
    ['v2', ACME, ACME_V2],
    ['v2', BARE, BARE_V2],
    ['v1', ACME, ACME_V1],
    ['v1', BARE, BARE_V1],
  ] as const)('%s retrieves %s, exact body', async (version, id, record) => {
    const res = await get(version, `/organisations/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toStrictEqual({ data: record });
  });

  it.each(['v1', 'v2'] as const)(
    '%s: an organisation of another enterprise is 403 with none of its data',
    async (version) => {
      const res = await get(version, `/organisations/${FOREIGN}`);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
    },
  );
});
