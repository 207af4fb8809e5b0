import type {
  AddressInput,
  EnterpriseInput,
  LeadInput,
  OrganisationInput,
  PersonInput,
  QuoteInput,
  SigningDocumentInput,
  UserInput,
} from './import-schema.js';
import {
  LEAD_MIXED,
  LEAD_TEXT,
  type NestedTable,
  type OwnerSection,
  type Row,
  type StageName,
} from './import-tables.js';

/** Where staged rows go (the Stager's buffers). */
export interface RowSink {
  push(name: StageName, row: Row): void;
}

const flag = (value: boolean): number => (value ? 1 : 0);

const timestamps = (record: { created_at?: string; updated_at?: string }): Row => ({
  created_at: record.created_at ?? null,
  updated_at: record.updated_at ?? null,
});

/** The composed address line of an address row: non-empty parts joined with ", ". */
export function composeAddressLine(row: AddressInput): string | null {
  const parts = [row.line1, row.line2, row.line3, row.suburb, row.state, row.postcode]
    .map((part) => part?.trim() ?? '')
    .filter((part) => part !== '');
  return parts.length === 0 ? null : parts.join(', ');
}

/**
 * Plaintext or a password that the staging preparers turn into stored values (they need the
 * stored row); these keys are not columns, so they never reach the database.
 */
export const PLAIN = {
  bKey: '_signprovider_b_key',
  firstName: '_first_name',
  password: '_password',
  passwordHash: '_password_hash',
} as const;

export function enterpriseRow(ord: number, e: EnterpriseInput): Row {
  return {
    ord,
    id: e.id,
    name: e.name,
    is_active: flag(e.is_active),
    [PLAIN.bKey]: e.signprovider_b_key,
    ...timestamps(e),
  };
}

export function stageUser(sink: RowSink, ord: number, u: UserInput): void {
  sink.push('users', {
    ord,
    id: u.id,
    name: u.name,
    email: u.email,
    is_active: flag(u.is_active),
    lists_memberships: u.enterprise_ids !== undefined,
    [PLAIN.password]: u.password,
    [PLAIN.passwordHash]: u.password_hash,
    ...timestamps(u),
  });
  for (const [j, enterpriseId] of (u.enterprise_ids ?? []).entries()) {
    sink.push('memberships', { user_ord: ord, ord: j, user_id: u.id, enterprise_id: enterpriseId });
  }
}

type Nested = Pick<PersonInput, 'phone_numbers' | 'emails' | 'addresses'> & { financials?: PersonInput['financials'] };

function stageNested(sink: RowSink, section: OwnerSection, ord: number, id: string, owner: Nested): void {
  const owned = (table: NestedTable, j: number, row: { id: string; created_at?: string; updated_at?: string }) => ({
    owner_section: section,
    owner_ord: ord,
    ord: j,
    id: row.id,
    person_id: section === 'people' ? id : null,
    ...(table === 'financials' ? {} : { organisation_id: section === 'organisations' ? id : null }),
    ...timestamps(row),
  });
  for (const [j, p] of (owner.phone_numbers ?? []).entries()) {
    sink.push('phone_numbers', {
      ...owned('phone_numbers', j, p),
      type: p.type,
      number: p.number,
      is_primary: flag(p.is_primary),
    });
  }
  for (const [j, e] of (owner.emails ?? []).entries()) {
    sink.push('emails', { ...owned('emails', j, e), address: e.address, is_primary: flag(e.is_primary) });
  }
  for (const [j, a] of (owner.addresses ?? []).entries()) {
    sink.push('addresses', {
      ...owned('addresses', j, a),
      type: a.type,
      address: a.address === undefined ? composeAddressLine(a) : a.address,
      line1: a.line1,
      line2: a.line2,
      line3: a.line3,
      suburb: a.suburb,
      state: a.state,
      postcode: a.postcode,
    });
  }
  for (const [j, f] of (owner.financials ?? []).entries()) {
    sink.push('financials', { ...owned('financials', j, f), type: f.type, amount: f.amount, category: f.category });
  }
}

const lists = (owner: Nested): Row => ({
  lists_phone_numbers: owner.phone_numbers !== undefined,
  lists_emails: owner.emails !== undefined,
  lists_addresses: owner.addresses !== undefined,
});

export function stagePerson(sink: RowSink, ord: number, p: PersonInput): void {
  const {
    phone_numbers: _p,
    emails: _e,
    addresses: _a,
    financials: _f,
    first_name,
    created_at,
    updated_at,
    ...rest
  } = p;
  sink.push('people', {
    ord,
    ...rest,
    [PLAIN.firstName]: first_name,
    ...timestamps({ created_at, updated_at }),
    ...lists(p),
    lists_financials: p.financials !== undefined,
  });
  stageNested(sink, 'people', ord, p.id, p);
}

export function stageOrganisation(sink: RowSink, ord: number, o: OrganisationInput): void {
  const { phone_numbers: _p, emails: _e, addresses: _a, gst_registered, created_at, updated_at, ...rest } = o;
  sink.push('organisations', {
    ord,
    ...rest,
    gst_registered: flag(gst_registered),
    ...timestamps({ created_at, updated_at }),
    ...lists(o),
  });
  stageNested(sink, 'organisations', ord, o.id, o);
}

/** A record of a section derived from its entity: its fields are its columns. */
export function entityRow(ord: number, record: Row & { created_at?: string; updated_at?: string }): Row {
  return { ord, ...record, ...timestamps(record) };
}

export function quoteRow(ord: number, q: QuoteInput): Row {
  const { calculation, is_active, ...rest } = q;
  return {
    ord,
    ...rest,
    is_active: flag(is_active),
    asset_type: calculation?.asset_type ?? null,
    asset_description: calculation?.asset_description ?? null,
    financier: calculation?.financier ?? null,
    total_finance_amount: calculation?.total_finance_amount ?? null,
    ...timestamps(q),
  };
}

export function leadRow(ord: number, l: LeadInput): Row {
  const row: Row = { ord, id: l.id, enterprise_id: l.enterprise_id, ...timestamps(l) };
  for (const name of LEAD_TEXT) row[name] = l[name];
  for (const name of LEAD_MIXED) row[name] = l[name];
  return row;
}

export function signingDocumentRow(ord: number, d: SigningDocumentInput): Row {
  return { ord, ...d, ...timestamps(d) };
}
