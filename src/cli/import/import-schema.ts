import { z } from 'zod';
import { TENANT_RESOURCES } from '../../resources/tenant-resources.js';
import { ENTITY_SECTIONS } from './entity-sections.js';
import { importReferencesOf } from './import-references.js';
import {
  chars,
  count,
  flag,
  id,
  money,
  optionalDate,
  optionalText,
  scalar,
  text,
  timestamp,
  timestamps,
} from './import-fields.js';

/**
 * The hand-written sections of the import file (docs/import-format.md); a section that is one row
 * of one table is derived from its entity instead (entity-sections.ts). Records are strict (an
 * unknown field is reported, so a typo never silently drops data); a quote's `calculation` is the
 * one open object, because calculation blobs carry many fields the service does not read.
 *
 * Optional scalar fields that are absent become null: a record in the file is the record's whole
 * state. Nested collections, passwords, memberships and timestamps that are absent are left as
 * they are on an existing record (docs/decisions/0004-import-file.md).
 */

export const enterpriseRecord = z.strictObject({
  id,
  name: chars(255, { required: true }),
  is_active: flag.default(true),
  // Absent: the stored key is kept (an export without secrets leaves it out).
  signprovider_b_key: text.min(1).nullable().optional(),
  ...timestamps,
});

export const userRecord = z
  .strictObject({
    id,
    name: chars(255, { required: true }),
    email: z.email().max(255),
    is_active: flag.default(true),
    password: text.min(1).optional(),
    password_hash: text
      .refine((hash) => /^\$(argon2id\$|2[aby]\$)/.test(hash), 'must be an argon2id or bcrypt hash')
      .optional(),
    enterprise_ids: z.array(id).optional(),
    ...timestamps,
  })
  .refine((user) => user.password === undefined || user.password_hash === undefined, {
    message: 'give password or password_hash, not both',
    path: ['password_hash'],
  });

const phoneNumberRow = z.strictObject({
  id,
  type: chars(255, { required: true }),
  number: chars(255, { required: true }),
  is_primary: flag.default(false),
  ...timestamps,
});

const emailRow = z.strictObject({
  id,
  address: z.email().max(255),
  is_primary: flag.default(false),
  ...timestamps,
});

const addressRow = z.strictObject({
  id,
  type: optionalText(),
  address: text.nullable().optional(),
  line1: optionalText(),
  line2: optionalText(),
  line3: optionalText(),
  suburb: optionalText(),
  state: optionalText(),
  postcode: optionalText(32),
  ...timestamps,
});

const financialRow = z.strictObject({
  id,
  type: chars(255, { required: true }),
  amount: money,
  category: optionalText(),
  ...timestamps,
});

const contacts = {
  phone_numbers: z.array(phoneNumberRow).optional(),
  emails: z.array(emailRow).optional(),
  addresses: z.array(addressRow).optional(),
};

export const personRecord = z.strictObject({
  id,
  enterprise_id: id.nullable(),
  title: optionalText(),
  first_name: chars(255).nullable().default(null),
  middle_name: optionalText(),
  last_name: optionalText(),
  salutation: optionalText(),
  maiden_name: optionalText(),
  birthday: optionalDate,
  gender: optionalText(),
  licence: optionalText(),
  licence_card: optionalText(),
  licence_state: optionalText(),
  licence_expiry: optionalDate,
  dependents: count,
  dependents_ages: optionalText(),
  marital_status: optionalText(),
  residency_status: optionalText(),
  ...timestamps,
  ...contacts,
  financials: z.array(financialRow).optional(),
});

export const organisationRecord = z.strictObject({
  id,
  enterprise_id: id.nullable(),
  legal_name: chars(255, { required: true }),
  legal_structure: optionalText(),
  short_name: optionalText(),
  trust_name: optionalText(),
  acn: optionalText(),
  abn: optionalText(),
  entity_type: optionalText(),
  abn_registration: optionalDate,
  abn_status: optionalText(),
  gst_registered: flag.default(false),
  gst_date: optionalDate,
  business_name: optionalText(),
  business_name2: optionalText(),
  business_name3: optionalText(),
  former_name: optionalText(),
  former_name2: optionalText(),
  former_name3: optionalText(),
  description: text.nullable().default(null),
  established_date: optionalDate,
  employees_count: count,
  industry: optionalText(),
  website: optionalText(2048),
  ...timestamps,
  ...contacts,
});

const calculation = z.looseObject({
  asset_type: optionalText(),
  asset_description: text.nullable().default(null),
  financier: optionalText(),
  total_finance_amount: money.nullable().default(null),
});

export const quoteRecord = z.strictObject({
  id,
  enterprise_id: id,
  application_id: id.nullable().default(null),
  is_active: flag.default(false),
  calculation: calculation.nullable().default(null),
  ...timestamps,
});

export const leadRecord = z.strictObject({
  id,
  enterprise_id: id.nullable(),
  title: chars(255, { required: true }),
  description: text.nullable().default(null),
  person_name: optionalText(),
  organisation_name: optionalText(),
  person_id: scalar,
  organisation_id: scalar,
  has_abn: scalar,
  abn: text.nullable().default(null),
  user_assigned_id: scalar,
  use: text.nullable().default(null),
  asset_description: text.nullable().default(null),
  purchase_price: scalar,
  deposit: scalar,
  trade_in: scalar,
  finance_amount: scalar,
  residual: scalar,
  finance_term: scalar,
  funds_required_within: text.nullable().default(null),
  realestate_owner: scalar,
  finance_last_3_years: scalar,
  applied_already: scalar,
  broker_id: scalar,
  phone: text.nullable().default(null),
  phone_type: text.nullable().default(null),
  email: z.email().nullable().default(null),
  email_type: text.nullable().default(null),
  source: text.nullable().default(null),
  ...timestamps,
});

export const SIGNING_STATUSES = {
  a: ['sent', 'viewed', 'signed', 'declined', 'revoked'],
  b: ['sent', 'delivered', 'completed', 'declined', 'voided'],
} as const;

export const signingDocumentRecord = z
  .strictObject({
    id,
    enterprise_id: id,
    provider: z.enum(['a', 'b']),
    external_id: chars(255, { required: true }),
    status: text,
    signed_at: timestamp,
    declined_at: timestamp,
    revoked_at: timestamp,
    ...timestamps,
  })
  .superRefine((doc, ctx) => {
    const allowed: readonly string[] = SIGNING_STATUSES[doc.provider];
    if (!allowed.includes(doc.status)) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: `must be one of: ${allowed.join(', ')}` });
    }
  });

/** Sections written before the entity-derived ones (which may refer to them) and after. */
const FIRST_SECTIONS = {
  enterprises: enterpriseRecord,
  users: userRecord,
  people: personRecord,
  organisations: organisationRecord,
} satisfies Record<string, z.ZodType>;
const LAST_SECTIONS = {
  quotes: quoteRecord,
  leads: leadRecord,
  signing_documents: signingDocumentRecord,
} satisfies Record<string, z.ZodType>;

/** A section written by hand-kept code: the rest are derived from their entities. */
export type HandSection = keyof typeof FIRST_SECTIONS | keyof typeof LAST_SECTIONS;
/** A section of the import file: its name, which is also its table. */
export type ImportSection = string;

/**
 * The schema of one record of each section, in the order sections are written: a section's
 * references are written before it.
 */
export const SECTION_RECORDS: Readonly<Record<ImportSection, z.ZodType>> = Object.fromEntries([
  ...Object.entries(FIRST_SECTIONS),
  ...ENTITY_SECTIONS.map((section) => [section.name, section.record] as const),
  ...Object.entries(LAST_SECTIONS),
]);
export const IMPORT_SECTIONS: readonly ImportSection[] = Object.keys(SECTION_RECORDS);

export function isImportSection(key: string): key is ImportSection {
  return Object.hasOwn(SECTION_RECORDS, key);
}

for (const resource of TENANT_RESOURCES) {
  const position = IMPORT_SECTIONS.indexOf(resource.path);
  // A resource without a section is reported by its own check (test/unit/import-sections).
  if (position < 0) continue;
  for (const reference of importReferencesOf(resource)) {
    if (IMPORT_SECTIONS.indexOf(reference.section) > position) {
      throw new Error(
        `The import section ${resource.path} refers to ${reference.section}, which is written after it: ` +
          `a section derived from its entity can only refer to enterprises, users, people and organisations`,
      );
    }
  }
}

export type EnterpriseInput = z.output<typeof enterpriseRecord>;
export type UserInput = z.output<typeof userRecord>;
export type PersonInput = z.output<typeof personRecord>;
export type OrganisationInput = z.output<typeof organisationRecord>;
export type QuoteInput = z.output<typeof quoteRecord>;
export type LeadInput = z.output<typeof leadRecord>;
export type SigningDocumentInput = z.output<typeof signingDocumentRecord>;
export type PhoneNumberInput = z.output<typeof phoneNumberRow>;
export type EmailInput = z.output<typeof emailRow>;
export type AddressInput = z.output<typeof addressRow>;
export type FinancialInput = z.output<typeof financialRow>;
