/**
 * The people of the import benchmark, as import-format records: shaped like the read
 * benchmark's (2 phones, 1 email, 1 address, 3 financials each), with ids stable across runs so
 * a second import finds every record.
 */

export const ENTERPRISE = '0e000000-0000-4000-8000-000000000001';

/** A UUID per (kind, counter). */
function uuid(kind: number, n: number): string {
  const hex = n.toString(16).padStart(12, '0');
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${hex}`;
}

const FIRST_NAMES = ['Jane', 'John', 'Aisha', 'Wei', 'Priya', 'Liam', 'Olivia', 'Noah', 'Mia', 'Lucas'];

export interface BenchPhone {
  id: string;
  type: string;
  number: string;
  is_primary: boolean;
}
export interface BenchEmail {
  id: string;
  address: string;
  is_primary: boolean;
}
export interface BenchAddress {
  id: string;
  type: string;
  line1: string;
  suburb: string;
  state: string;
  postcode: string;
}
export interface BenchFinancial {
  id: string;
  type: string;
  amount: string;
  category: string;
}

export interface BenchPerson {
  id: string;
  enterprise_id: string;
  title: string;
  first_name: string;
  last_name: string;
  birthday: string;
  gender: string;
  licence: string;
  licence_state: string;
  licence_expiry: string;
  dependents: number;
  dependents_ages: string;
  marital_status: string;
  residency_status: string;
  created_at: string;
  updated_at: string;
  phone_numbers: BenchPhone[];
  emails: BenchEmail[];
  addresses: BenchAddress[];
  financials: BenchFinancial[];
}

export function benchPerson(i: number): BenchPerson {
  const created = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
  const nested = (kind: number, j: number) => uuid(kind, i * 4 + j);
  return {
    id: uuid(1, i),
    enterprise_id: ENTERPRISE,
    title: 'Ms',
    first_name: FIRST_NAMES[i % 10] ?? 'Jane',
    last_name: `Citizen ${i}`,
    birthday: new Date(Date.UTC(1980, 0, 1) + (i % 9000) * 86_400_000).toISOString().slice(0, 10),
    gender: 'Female',
    licence: String(10_000_000 + i),
    licence_state: 'New South Wales',
    licence_expiry: '2030-01-01',
    dependents: i % 4,
    dependents_ages: '4, 7',
    marital_status: 'Married',
    residency_status: 'Citizen',
    created_at: created,
    updated_at: created,
    phone_numbers: [
      { id: nested(2, 0), type: 'mobile', number: '0400 000 1', is_primary: true },
      { id: nested(2, 1), type: 'work', number: '0400 000 2', is_primary: false },
    ],
    emails: [{ id: nested(3, 0), address: `person-${i}@example.com`, is_primary: true }],
    addresses: [
      {
        id: nested(4, 0),
        type: 'Residential',
        line1: '1 Main St',
        suburb: 'Sydney',
        state: 'New South Wales',
        postcode: '2000',
      },
    ],
    financials: [
      { id: nested(5, 0), type: 'income', amount: '5200.00', category: 'salary and wages' },
      { id: nested(5, 1), type: 'expense', amount: '1200.50', category: 'rent' },
      { id: nested(5, 2), type: 'expense', amount: '0.00', category: 'other' },
    ],
  };
}
