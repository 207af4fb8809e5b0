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
import { LEAD_MIXED, LEAD_TEXT, type OwnerSection, type Row, type StageName } from './import-tables.js';

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

type Nested = Pick<PersonInput, 'enterprise_id' | 'phone_numbers' | 'emails' | 'addresses'> & {
  financials?: PersonInput['financials'];
};

function stageNested(sink: RowSink, section: OwnerSection, ord: number, id: string, owner: Nested): void {
  // Rows are built whole, in one literal each (no spreads): a large import stages millions.
  const personId = section === 'people' ? id : null;
  const organisationId = section === 'organisations' ? id : null;
  // The owner's enterprise: the database refuses a row whose enterprise is not its owner's.
  const enterpriseId = owner.enterprise_id;
  const phones = owner.phone_numbers ?? [];
  for (let j = 0; j < phones.length; j++) {
    const p = phones[j] as NonNullable<Nested['phone_numbers']>[number];
    sink.push('phone_numbers', {
      owner_section: section,
      owner_ord: ord,
      ord: j,
      id: p.id,
      enterprise_id: enterpriseId,
      person_id: personId,
      organisation_id: organisationId,
      created_at: p.created_at ?? null,
      updated_at: p.updated_at ?? null,
      type: p.type,
      number: p.number,
      is_primary: flag(p.is_primary),
    });
  }
  const emails = owner.emails ?? [];
  for (let j = 0; j < emails.length; j++) {
    const e = emails[j] as NonNullable<Nested['emails']>[number];
    sink.push('emails', {
      owner_section: section,
      owner_ord: ord,
      ord: j,
      id: e.id,
      enterprise_id: enterpriseId,
      person_id: personId,
      organisation_id: organisationId,
      created_at: e.created_at ?? null,
      updated_at: e.updated_at ?? null,
      address: e.address,
      is_primary: flag(e.is_primary),
    });
  }
  const addresses = owner.addresses ?? [];
  for (let j = 0; j < addresses.length; j++) {
    const a = addresses[j] as NonNullable<Nested['addresses']>[number];
    sink.push('addresses', {
      owner_section: section,
      owner_ord: ord,
      ord: j,
      id: a.id,
      enterprise_id: enterpriseId,
      person_id: personId,
      organisation_id: organisationId,
      created_at: a.created_at ?? null,
      updated_at: a.updated_at ?? null,
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
  const financials = owner.financials ?? [];
  for (let j = 0; j < financials.length; j++) {
    const f = financials[j] as NonNullable<Nested['financials']>[number];
    sink.push('financials', {
      owner_section: section,
      owner_ord: ord,
      ord: j,
      id: f.id,
      enterprise_id: enterpriseId,
      person_id: personId,
      created_at: f.created_at ?? null,
      updated_at: f.updated_at ?? null,
      type: f.type,
      amount: f.amount,
      category: f.category,
    });
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
