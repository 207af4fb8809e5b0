import { z } from 'zod';

/**
 * The import file of `import-format.md`. Records are strict (an unknown field is reported, so a
 * typo never silently drops data); a quote's `calculation` is the one open object, because
 * calculation blobs carry many fields the service does not read.
 *
 * Optional scalar fields that are absent become null: a record in the file is the record's whole
 * state. Nested collections, passwords, memberships and timestamps that are absent are left as
 * they are on an existing record (docs/decisions.md).
 */

/** Any 8-4-4-4-12 hex id, as PostgreSQL's uuid type takes it; kept lower-case like the database. */
const id = z.guid().transform((value) => value.toLowerCase());
const text = z.string();
/**
 * A string of at most `max` characters counted as code points, as PostgreSQL's varchar(n) counts
 * them (zod's own max counts UTF-16 units, so it would refuse 255 emoji the column holds).
 */
const chars = (max: number, { required = false } = {}) =>
  z.string().superRefine((value, ctx) => {
    if (required && value.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    // A string is never more code points than UTF-16 units: count them only when it could be too long.
    else if (value.length > max && [...value].length > max) {
      ctx.addIssue({ code: 'custom', message: `must not be greater than ${max} characters` });
    }
  });
const optionalText = (max = 255) => chars(max).nullable().default(null);
const optionalDate = z.iso.date().nullable().default(null);
const timestamp = z.iso.datetime({ offset: true }).optional();
const flag = z.union([z.boolean(), z.literal(0), z.literal(1)], { error: 'must be true or false' }).transform(Boolean);
const money = z
  .union([z.string(), z.number()], { error: 'must be a decimal amount' })
  .transform((value) => String(value).trim())
  .refine((value) => /^-?\d{1,12}(\.\d{1,2})?$/.test(value), 'must be a decimal amount with at most two places');
const count = z.int().min(0).nullable().default(null);
/** A lead's mixed-typed input (R16): any JSON scalar or null, kept with its type. */
const scalar = z
  .union([z.string(), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' })
  .default(null);

const timestamps = { created_at: timestamp, updated_at: timestamp };

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

export const applicationRecord = z.strictObject({
  id,
  enterprise_id: id,
  settlement_date_actual: optionalDate,
  contract_number: optionalText(),
  source_of_business: optionalText(),
  crm_deal_id: optionalText(),
  ...timestamps,
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

export const importDocumentSchema = z.strictObject({
  enterprises: z.array(enterpriseRecord).default([]),
  users: z.array(userRecord).default([]),
  people: z.array(personRecord).default([]),
  organisations: z.array(organisationRecord).default([]),
  applications: z.array(applicationRecord).default([]),
  quotes: z.array(quoteRecord).default([]),
  leads: z.array(leadRecord).default([]),
  signing_documents: z.array(signingDocumentRecord).default([]),
});

export type ImportDocument = z.output<typeof importDocumentSchema>;
export type ImportSection = keyof ImportDocument;
export const IMPORT_SECTIONS = Object.keys(importDocumentSchema.shape) as ImportSection[];

/** The schema of one record of each section, for validating a file record by record. */
export const SECTION_RECORDS = {
  enterprises: enterpriseRecord,
  users: userRecord,
  people: personRecord,
  organisations: organisationRecord,
  applications: applicationRecord,
  quotes: quoteRecord,
  leads: leadRecord,
  signing_documents: signingDocumentRecord,
} satisfies Record<ImportSection, z.ZodType>;

export function isImportSection(key: string): key is ImportSection {
  return Object.hasOwn(SECTION_RECORDS, key);
}

export type EnterpriseInput = z.output<typeof enterpriseRecord>;
export type UserInput = z.output<typeof userRecord>;
export type PersonInput = z.output<typeof personRecord>;
export type OrganisationInput = z.output<typeof organisationRecord>;
export type ApplicationInput = z.output<typeof applicationRecord>;
export type QuoteInput = z.output<typeof quoteRecord>;
export type LeadInput = z.output<typeof leadRecord>;
export type SigningDocumentInput = z.output<typeof signingDocumentRecord>;
export type PhoneNumberInput = z.output<typeof phoneNumberRow>;
export type EmailInput = z.output<typeof emailRow>;
export type AddressInput = z.output<typeof addressRow>;
export type FinancialInput = z.output<typeof financialRow>;
