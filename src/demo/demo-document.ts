import { ENTITY_SECTIONS } from '../cli/import/entity-sections.js';
import { demoId } from './demo-id.js';

export const DEMO_CREDENTIALS = [
  { email: 'demo@example.com', password: 'demo-password', name: 'Demo Broker' },
  { email: 'second@example.com', password: 'second-password', name: 'Second Broker' },
] as const;

export const DEMO_ENTERPRISE_ID = demoId('enterprise:demo');
export const SECOND_ENTERPRISE_ID = demoId('enterprise:second');
export const DEMO_SIGNPROVIDER_B_KEY = 'demo-signprovider-b-key';

const FIRST_NAMES = ['Jane', 'John', 'Aisha', 'Wei', 'Priya', 'Liam', 'Olivia', 'Noah', 'Mia', 'Lucas'];
const LAST_NAMES = ['Citizen', 'Nguyen', 'Smith', 'Patel', 'Brown', 'Wilson', 'Taylor', 'Khan', 'Lee', 'Martin'];
const SUBURBS = [
  ['Sydney', 'New South Wales', '2000'],
  ['Melbourne', 'Victoria', '3000'],
  ['Brisbane', 'Queensland', '4000'],
  ['Perth', 'Western Australia', '6000'],
] as const;
const BASE_TIME = Date.parse('2026-01-01T09:00:00.000Z');

function pick<T>(list: readonly T[], i: number): T {
  return list[i % list.length] as T;
}

/** Minutes after the base time, so list order (newest first) is visible in the demo. */
function at(minutes: number): string {
  return new Date(BASE_TIME + minutes * 60_000).toISOString();
}

function person(enterprise: string, i: number): Record<string, unknown> {
  const key = `${enterprise}:person:${i}`;
  const [suburb, state, postcode] = pick(SUBURBS, i);
  return {
    id: demoId(key),
    enterprise_id: enterprise,
    title: pick(['Ms', 'Mr', 'Dr', null], i),
    first_name: pick(FIRST_NAMES, i),
    middle_name: i % 3 === 0 ? 'Anne' : null,
    last_name: pick(LAST_NAMES, Math.floor(i / 10)),
    salutation: null,
    maiden_name: null,
    birthday: `19${60 + (i % 40)}-0${1 + (i % 9)}-1${i % 10}`,
    gender: pick(['Female', 'Male', null], i),
    licence: String(10_000_000 + i),
    licence_card: null,
    licence_state: state,
    licence_expiry: '2030-01-01',
    dependents: i % 4,
    dependents_ages: i % 4 === 0 ? null : '4, 7',
    marital_status: pick(['Married', 'Single', 'De Facto'], i),
    residency_status: 'Citizen',
    created_at: at(i),
    updated_at: at(i),
    phone_numbers: [
      {
        id: demoId(`${key}:phone:1`),
        type: 'mobile',
        number: `0400 ${String(100_000 + i).slice(0, 3)} ${String(i).padStart(3, '0')}`,
        is_primary: true,
      },
      {
        id: demoId(`${key}:phone:2`),
        type: 'work',
        number: `02 9000 ${String(i).padStart(4, '0')}`,
        is_primary: false,
      },
    ],
    emails: [{ id: demoId(`${key}:email:1`), address: `person${i}@example.com`, is_primary: true }],
    addresses: [
      {
        id: demoId(`${key}:address:1`),
        type: 'Residential',
        line1: `${1 + i} Main St`,
        line2: null,
        line3: null,
        suburb,
        state,
        postcode,
      },
    ],
    financials: [
      { id: demoId(`${key}:financial:1`), type: 'income', amount: `${5000 + i}.00`, category: 'salary and wages' },
      {
        id: demoId(`${key}:financial:2`),
        type: 'expense',
        amount: i % 5 === 0 ? '0.00' : '1200.50',
        category: 'living expenses',
      },
    ],
  };
}

function organisation(enterprise: string, i: number): Record<string, unknown> {
  const key = `${enterprise}:organisation:${i}`;
  return {
    id: demoId(key),
    enterprise_id: enterprise,
    legal_name: `${pick(LAST_NAMES, i)} Holdings ${i} Pty Ltd`,
    legal_structure: 'Company',
    short_name: null,
    trust_name: null,
    acn: String(100_000_000 + i),
    abn: String(10_000_000_000 + i),
    entity_type: 'Australian Private Company',
    abn_registration: '2001-07-01',
    abn_status: 'Active',
    gst_registered: i % 2 === 0,
    gst_date: i % 2 === 0 ? '2001-07-01' : null,
    business_name: `${pick(LAST_NAMES, i)} Trading`,
    business_name2: null,
    business_name3: null,
    former_name: null,
    former_name2: null,
    former_name3: null,
    description: null,
    established_date: '2001-07-01',
    employees_count: 5 + i,
    industry: pick(['Construction', 'Retail', 'Transport'], i),
    website: `https://org${i}.example.com`,
    created_at: at(i),
    updated_at: at(i),
    phone_numbers: [
      {
        id: demoId(`${key}:phone:1`),
        type: 'office',
        number: `02 8000 ${String(i).padStart(4, '0')}`,
        is_primary: true,
      },
    ],
    emails: [{ id: demoId(`${key}:email:1`), address: `accounts${i}@org.example.com`, is_primary: true }],
    addresses: [
      {
        id: demoId(`${key}:address:1`),
        type: 'Business',
        line1: `${10 + i} George St`,
        line2: 'Level 2',
        line3: null,
        suburb: 'Sydney',
        state: 'New South Wales',
        postcode: '2000',
      },
    ],
  };
}

/**
 * The demo data set, in the import format: two enterprises, 260 people in the first (three
 * pages), organisations, applications with and without an active quote, quotes, leads and
 * signing documents for both providers.
 */
export function demoDocument(): Record<string, Record<string, unknown>[]> {
  const applications: Record<string, unknown>[] = [];
  const quotes: Record<string, unknown>[] = [];
  for (let i = 0; i < 20; i++) {
    const appId = demoId(`application:${i}`);
    applications.push({
      id: appId,
      enterprise_id: DEMO_ENTERPRISE_ID,
      settlement_date_actual: i % 3 === 0 ? '2026-02-01' : null,
      contract_number: i % 2 === 0 ? `CN-${1000 + i}` : null,
      source_of_business: pick(['Referral', 'Website', 'Repeat client'], i),
      crm_deal_id: i % 4 === 0 ? `deal-${i}` : null,
      created_at: at(i),
      updated_at: at(i),
    });
    // Every third application has no active quote; the rest have one active and one inactive.
    quotes.push({
      id: demoId(`quote:${i}:a`),
      enterprise_id: DEMO_ENTERPRISE_ID,
      application_id: appId,
      is_active: i % 3 !== 0,
      calculation: {
        asset_type: pick(['Motor Vehicle', 'Equipment', 'Truck'], i),
        asset_description: `${2020 + (i % 6)} asset ${i}`,
        financier: pick(['Example Bank', 'Sample Credit Union'], i),
        total_finance_amount: `${40_000 + i * 1000}.00`,
      },
      created_at: at(i),
      updated_at: at(i),
    });
    quotes.push({
      id: demoId(`quote:${i}:b`),
      enterprise_id: DEMO_ENTERPRISE_ID,
      application_id: appId,
      is_active: false,
      calculation: {
        asset_type: 'Motor Vehicle',
        asset_description: 'Alternative',
        financier: 'Other Bank',
        total_finance_amount: '1000.00',
      },
      created_at: at(i),
      updated_at: at(i),
    });
  }
  quotes.push({
    id: demoId('quote:unattached'),
    enterprise_id: DEMO_ENTERPRISE_ID,
    application_id: null,
    is_active: false,
    calculation: null,
  });

  const leads = Array.from({ length: 30 }, (_, i) => ({
    id: demoId(`lead:${i}`),
    enterprise_id: i < 25 ? DEMO_ENTERPRISE_ID : SECOND_ENTERPRISE_ID,
    title: pick(['Car loan', 'Equipment finance', 'Truck refinance'], i),
    description: i % 2 === 0 ? 'Called in from the website' : null,
    person_name: `${pick(FIRST_NAMES, i)} ${pick(LAST_NAMES, i)}`,
    organisation_name: i % 3 === 0 ? `${pick(LAST_NAMES, i)} Holdings Pty Ltd` : null,
    created_at: at(i),
    updated_at: at(i),
  }));

  const document: Record<string, Record<string, unknown>[]> = {
    enterprises: [
      { id: DEMO_ENTERPRISE_ID, name: 'Demo Finance', is_active: true, signprovider_b_key: DEMO_SIGNPROVIDER_B_KEY },
      { id: SECOND_ENTERPRISE_ID, name: 'Second Finance', is_active: true, signprovider_b_key: null },
    ],
    users: [
      {
        id: demoId('user:demo'),
        ...DEMO_CREDENTIALS[0],
        is_active: true,
        enterprise_ids: [DEMO_ENTERPRISE_ID, SECOND_ENTERPRISE_ID],
      },
      { id: demoId('user:second'), ...DEMO_CREDENTIALS[1], is_active: true, enterprise_ids: [SECOND_ENTERPRISE_ID] },
    ],
    people: [
      ...Array.from({ length: 260 }, (_, i) => person(DEMO_ENTERPRISE_ID, i)),
      ...Array.from({ length: 5 }, (_, i) => person(SECOND_ENTERPRISE_ID, i)),
    ],
    organisations: [
      ...Array.from({ length: 30 }, (_, i) => organisation(DEMO_ENTERPRISE_ID, i)),
      organisation(SECOND_ENTERPRISE_ID, 0),
    ],
    applications,
    quotes,
    leads,
    signing_documents: [
      ...PROVIDER_STATUSES.a.map((status, i) => ({
        id: demoId(`signing:a:${i}`),
        enterprise_id: DEMO_ENTERPRISE_ID,
        provider: 'a',
        external_id: `demo-a-doc-${i}`,
        status,
      })),
      ...PROVIDER_STATUSES.b.map((status, i) => ({
        id: demoId(`signing:b:${i}`),
        enterprise_id: DEMO_ENTERPRISE_ID,
        provider: 'b',
        external_id: `demo-b-envelope-${i}`,
        status,
      })),
    ],
  };
  return { ...document, ...sampledSections(document) };
}

/**
 * Records of every resource whose import section is derived from its entity and that has none
 * above: twelve in the demo enterprise, each text its column's name and number ("Title 3").
 */
export function sampledSections(
  document: Record<string, Record<string, unknown>[]>,
): Record<string, Record<string, unknown>[]> {
  const firstOf = (section: string): string | undefined => {
    const id = document[section]?.find((record) => record.enterprise_id === DEMO_ENTERPRISE_ID)?.id;
    return typeof id === 'string' ? id : undefined;
  };
  const sampled: Record<string, Record<string, unknown>[]> = {};
  for (const section of ENTITY_SECTIONS) {
    if (document[section.name] !== undefined) continue;
    sampled[section.name] = Array.from({ length: 12 }, (_, i) => ({
      id: demoId(`${section.name}:${i}`),
      ...section.sample(i, {
        enterpriseId: DEMO_ENTERPRISE_ID,
        recordOf: firstOf,
        text: (column, n) => `${column.charAt(0).toUpperCase()}${column.slice(1).replaceAll('_', ' ')} ${n + 1}`,
      }),
      created_at: at(i),
      updated_at: at(i),
    }));
  }
  return sampled;
}

const PROVIDER_STATUSES = { a: ['sent', 'viewed'], b: ['sent', 'delivered'] } as const;
