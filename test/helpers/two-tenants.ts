import { randomBytes, randomUUID } from 'node:crypto';
import type { ImportDocument } from './fixtures.js';

/** The records of one enterprise, one of each resource, by the path segment that names them. */
export interface TenantRecords {
  readonly enterpriseId: string;
  readonly user: { id: string; email: string; password: string };
  /** Record ids by API resource (`leads`, `people`, ...), including the enterprise and the user. */
  readonly ids: Readonly<Record<TenantResource, string>>;
  /** Every id of every row of this tenant, nested rows included. */
  readonly allIds: readonly string[];
  /** Distinctive text values stored on this tenant's records (names, numbers, emails ...). */
  readonly markers: readonly string[];
}

export const TENANT_RESOURCES = [
  'enterprises',
  'users',
  'leads',
  'people',
  'organisations',
  'applications',
  'quotes',
] as const;
export type TenantResource = (typeof TENANT_RESOURCES)[number];

function tenantRecords(label: 'own' | 'foreign'): { doc: ImportDocument; records: TenantRecords } {
  const tag = randomBytes(5).toString('hex');
  const markers: string[] = [];
  const allIds: string[] = [];
  /** A value nobody would produce by chance, remembered as this tenant's. */
  const mark = (field: string) => {
    const value = `${label}-${field}-${tag}`;
    markers.push(value);
    return value;
  };
  const id = () => {
    const value = randomUUID();
    allIds.push(value);
    return value;
  };
  const ids = {
    enterprises: id(),
    users: id(),
    leads: id(),
    people: id(),
    organisations: id(),
    applications: id(),
    quotes: id(),
  };
  const email = `${label}-user-${tag}@example.com`;
  markers.push(email);
  const password = `${label}-password-${tag}`;
  const contacts = () => ({
    phone_numbers: [{ id: id(), type: 'mobile', number: mark('phone'), is_primary: true }],
    emails: [{ id: id(), address: `${mark('mail')}@example.com`, is_primary: true }],
    addresses: [
      { id: id(), type: 'Residential', line1: mark('line1'), suburb: mark('suburb'), state: 'NSW', postcode: '2000' },
    ],
  });
  const doc: ImportDocument = {
    enterprises: [{ id: ids.enterprises, name: mark('enterprise'), is_active: true }],
    users: [
      {
        id: ids.users,
        name: mark('user'),
        email,
        password,
        is_active: true,
        enterprise_ids: [ids.enterprises],
      },
    ],
    people: [
      {
        id: ids.people,
        enterprise_id: ids.enterprises,
        first_name: mark('first'),
        last_name: mark('last'),
        licence: mark('licence'),
        dependents_ages: mark('ages'),
        ...contacts(),
        financials: [{ id: id(), type: 'income', amount: '5200.00', category: mark('category') }],
      },
    ],
    organisations: [
      {
        id: ids.organisations,
        enterprise_id: ids.enterprises,
        legal_name: mark('legal'),
        trust_name: mark('trust'),
        acn: mark('acn'),
        website: `https://${mark('site')}.example.com`,
        ...contacts(),
      },
    ],
    applications: [
      {
        id: ids.applications,
        enterprise_id: ids.enterprises,
        contract_number: mark('contract'),
        source_of_business: mark('source'),
        crm_deal_id: mark('deal'),
      },
    ],
    quotes: [
      {
        id: ids.quotes,
        enterprise_id: ids.enterprises,
        application_id: ids.applications,
        is_active: true,
        calculation: {
          asset_type: mark('asset'),
          asset_description: mark('asset-description'),
          financier: mark('financier'),
          total_finance_amount: '45000.00',
        },
      },
    ],
    leads: [
      {
        id: ids.leads,
        enterprise_id: ids.enterprises,
        title: mark('lead'),
        description: mark('lead-description'),
        person_name: mark('lead-person'),
        organisation_name: mark('lead-organisation'),
      },
    ],
    signing_documents: [
      { id: id(), enterprise_id: ids.enterprises, provider: 'a', external_id: mark('doc-a'), status: 'sent' },
    ],
  };
  return {
    doc,
    records: { enterpriseId: ids.enterprises, user: { id: ids.users, email, password }, ids, allIds, markers },
  };
}

/**
 * Two enterprises with one record of every resource each (nested rows too), and a user in
 * each that belongs to its own enterprise only. Every text value is distinctive, so a test can
 * look for any of the foreign tenant's values in an answer.
 */
export function twoTenants(): { doc: ImportDocument; own: TenantRecords; foreign: TenantRecords } {
  const own = tenantRecords('own');
  const foreign = tenantRecords('foreign');
  const doc: ImportDocument = {};
  for (const part of [own.doc, foreign.doc]) {
    for (const [key, rows] of Object.entries(part)) doc[key] = [...(doc[key] ?? []), ...rows];
  }
  return { doc, own: own.records, foreign: foreign.records };
}

/** The foreign values found in a text, leaving out those the request itself sent. */
export function leakedValues(text: string, foreign: TenantRecords, sent: string): string[] {
  const lower = text.toLowerCase();
  const sentLower = sent.toLowerCase();
  return [...foreign.allIds, ...foreign.markers].filter(
    (value) => lower.includes(value.toLowerCase()) && !sentLower.includes(value.toLowerCase()),
  );
}
