/**
 * The tables an import writes, described once: the columns each record fills, and the staging
 * table (a TEMP table of the import's transaction) that holds a section's rows before the
 * set-based checks and upserts read them.
 */
import { MIXED_COLUMNS, TEXT_COLUMNS } from '../../leads/lead-fields.js';
import { ENTITY_SECTIONS } from './entity-sections.js';

export type ColumnType =
  'uuid' | 'text' | 'smallint' | 'integer' | 'boolean' | 'date' | 'timestamptz(3)' | 'numeric(14,2)' | 'jsonb';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

export type NestedTable = 'phone_numbers' | 'emails' | 'addresses' | 'financials';
export type OwnerSection = 'people' | 'organisations';
export const NESTED_TABLES: readonly NestedTable[] = ['phone_numbers', 'emails', 'addresses', 'financials'];

/** A target table: its name and the columns an import writes besides id and timestamps. */
export interface TargetTable {
  readonly table: string;
  readonly columns: readonly Column[];
}

/** A staging table: bookkeeping columns (where each row is in the file) before the target's. */
export interface StageTable {
  readonly name: string;
  readonly columns: readonly Column[];
}

const cols = (spec: Record<string, ColumnType>): Column[] =>
  Object.entries(spec).map(([name, type]) => ({ name, type }));

export const ENTERPRISES: TargetTable = {
  table: 'enterprises',
  columns: cols({ name: 'text', is_active: 'smallint', signprovider_b_key_encrypted: 'text' }),
};
export const USERS: TargetTable = {
  table: 'users',
  columns: cols({ name: 'text', email: 'text', is_active: 'smallint', password_hash: 'text' }),
};
export const PEOPLE: TargetTable = {
  table: 'people',
  columns: cols({
    enterprise_id: 'uuid',
    title: 'text',
    first_name_encrypted: 'text',
    middle_name: 'text',
    last_name: 'text',
    salutation: 'text',
    maiden_name: 'text',
    birthday: 'date',
    gender: 'text',
    licence: 'text',
    licence_card: 'text',
    licence_state: 'text',
    licence_expiry: 'date',
    dependents: 'integer',
    dependents_ages: 'text',
    marital_status: 'text',
    residency_status: 'text',
  }),
};
export const ORGANISATIONS: TargetTable = {
  table: 'organisations',
  columns: cols({
    enterprise_id: 'uuid',
    legal_name: 'text',
    legal_structure: 'text',
    short_name: 'text',
    trust_name: 'text',
    acn: 'text',
    abn: 'text',
    entity_type: 'text',
    abn_registration: 'date',
    abn_status: 'text',
    gst_registered: 'smallint',
    gst_date: 'date',
    business_name: 'text',
    business_name2: 'text',
    business_name3: 'text',
    former_name: 'text',
    former_name2: 'text',
    former_name3: 'text',
    description: 'text',
    established_date: 'date',
    employees_count: 'integer',
    industry: 'text',
    website: 'text',
  }),
};
const OWNERS = cols({ enterprise_id: 'uuid', person_id: 'uuid', organisation_id: 'uuid' });
export const NESTED: Record<NestedTable, TargetTable> = {
  phone_numbers: {
    table: 'phone_numbers',
    columns: [...OWNERS, ...cols({ type: 'text', number: 'text', is_primary: 'smallint' })],
  },
  emails: { table: 'emails', columns: [...OWNERS, ...cols({ address: 'text', is_primary: 'smallint' })] },
  addresses: {
    table: 'addresses',
    columns: [
      ...OWNERS,
      ...cols({
        type: 'text',
        address: 'text',
        line1: 'text',
        line2: 'text',
        line3: 'text',
        suburb: 'text',
        state: 'text',
        postcode: 'text',
      }),
    ],
  },
  financials: {
    table: 'financials',
    columns: cols({
      enterprise_id: 'uuid',
      person_id: 'uuid',
      type: 'text',
      amount: 'numeric(14,2)',
      category: 'text',
    }),
  },
};
export const QUOTES: TargetTable = {
  table: 'quotes',
  columns: cols({
    enterprise_id: 'uuid',
    application_id: 'uuid',
    is_active: 'smallint',
    asset_type: 'text',
    asset_description: 'text',
    financier: 'text',
    total_finance_amount: 'numeric(14,2)',
  }),
};
/** A lead's mixed-typed fields, kept as JSON with their type: the API's own lists. */
export const LEAD_MIXED = MIXED_COLUMNS;
export const LEAD_TEXT = TEXT_COLUMNS;
export const LEADS: TargetTable = {
  table: 'leads',
  columns: [
    { name: 'enterprise_id', type: 'uuid' },
    ...LEAD_TEXT.map((name) => ({ name, type: 'text' as const })),
    ...LEAD_MIXED.map((name) => ({ name, type: 'jsonb' as const })),
  ],
};
export const SIGNING_DOCUMENTS: TargetTable = {
  table: 'signing_documents',
  columns: cols({
    enterprise_id: 'uuid',
    provider: 'text',
    external_id: 'text',
    status: 'text',
    signed_at: 'timestamptz(3)',
    declined_at: 'timestamptz(3)',
    revoked_at: 'timestamptz(3)',
  }),
};

const RECORD = cols({ id: 'uuid' });
const TIMESTAMPS = cols({ created_at: 'timestamptz(3)', updated_at: 'timestamptz(3)' });
/** `ord`: the record's index in its section, for problem paths. */
const ORD = cols({ ord: 'integer' });
const LISTS = (tables: readonly NestedTable[]): Column[] =>
  tables.map((t) => ({ name: `lists_${t}`, type: 'boolean' as const }));

/** `existed`: the record was in the database before the import (set while staging). */
const EXISTED = cols({ existed: 'boolean' });

function stage(target: TargetTable, extra: Column[] = []): StageTable {
  return { name: `import_${target.table}`, columns: [...ORD, ...RECORD, ...target.columns, ...TIMESTAMPS, ...extra] };
}

const HAND_STAGES = {
  enterprises: stage(ENTERPRISES),
  users: stage(USERS, cols({ lists_memberships: 'boolean', existed: 'boolean' })),
  memberships: {
    name: 'import_memberships',
    columns: cols({ user_ord: 'integer', ord: 'integer', user_id: 'uuid', enterprise_id: 'uuid' }),
  },
  people: stage(PEOPLE, [...LISTS(NESTED_TABLES), ...EXISTED]),
  organisations: stage(ORGANISATIONS, [...LISTS(['phone_numbers', 'emails', 'addresses']), ...EXISTED]),
  phone_numbers: nestedStage('phone_numbers'),
  emails: nestedStage('emails'),
  addresses: nestedStage('addresses'),
  financials: nestedStage('financials'),
  quotes: stage(QUOTES),
  leads: stage(LEADS),
  signing_documents: stage(SIGNING_DOCUMENTS),
} satisfies Record<string, StageTable>;

/** A staging table's key: its section's name, or a nested table's, or `memberships`. */
export type StageName = string;

/** Every staging table, the entity-derived sections' included. */
export const STAGES: Readonly<Record<StageName, StageTable>> = {
  ...HAND_STAGES,
  ...Object.fromEntries(ENTITY_SECTIONS.map((section) => [section.name, stage(section.target)])),
};

export function stageOf(name: StageName): StageTable {
  const table = STAGES[name];
  if (!table) throw new Error(`The import file has no section ${name}`);
  return table;
}

function nestedStage(table: NestedTable): StageTable {
  const owner = cols({ owner_section: 'text', owner_ord: 'integer' });
  return {
    name: `import_${table}`,
    columns: [...owner, ...ORD, ...RECORD, ...NESTED[table].columns, ...TIMESTAMPS],
  };
}

export type Row = Record<string, unknown>;

/** The tables an import may load straight into, without staging: people and their nested rows. */
export type DirectTable = 'people' | NestedTable;
export const DIRECT_TABLES: readonly DirectTable[] = ['people', ...NESTED_TABLES];

/** The stager's name for rows bound straight for a target table. */
export const directName = (table: DirectTable): StageName => `${table} (direct)`;

/** A target table as its rows are loaded straight into it: id, its columns, timestamps. */
export function directOf(table: DirectTable): StageTable {
  const target = table === 'people' ? PEOPLE : NESTED[table];
  return { name: target.table, columns: [...RECORD, ...target.columns, ...TIMESTAMPS] };
}

interface Destination {
  readonly table: StageTable;
  readonly staging: boolean;
}

/** Every name the stager writes to, looked up once per staged row. */
const DESTINATIONS: ReadonlyMap<StageName, Destination> = new Map([
  ...Object.entries(STAGES).map(([name, table]): [StageName, Destination] => [name, { table, staging: true }]),
  ...DIRECT_TABLES.map((t): [StageName, Destination] => [directName(t), { table: directOf(t), staging: false }]),
]);

/** A name the stager writes to: a staging table, or a target loaded straight into. */
export function destinationOf(name: StageName): Destination {
  const destination = DESTINATIONS.get(name);
  if (!destination) throw new Error(`The import file has no section ${name}`);
  return destination;
}
