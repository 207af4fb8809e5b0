import { hashPassword, verifyPassword } from '../../common/auth/password-hasher.js';
import { DecryptionError, type FieldCipher } from '../../common/crypto/field-cipher.js';
import { selectRows, type SqlExecutor } from '../../database/sql.js';
import type {
  AddressInput,
  ImportDocument,
  ImportSection,
  OrganisationInput,
  PersonInput,
  UserInput,
} from './import-schema.js';
import { upsertRows, upsertRowsReporting, type ColumnSpec, type UpsertOutcome } from './upsert-rows.js';

export type ImportCounts = Record<ImportSection, UpsertOutcome & { total: number }>;

const cols = (spec: Record<string, string>): ColumnSpec[] =>
  Object.entries(spec).map(([name, type]) => ({ name, type }));

const ENTERPRISE_COLUMNS = cols({ name: 'text', is_active: 'smallint', signprovider_b_key_encrypted: 'text' });
const USER_COLUMNS = cols({ name: 'text', email: 'text', is_active: 'smallint', password_hash: 'text' });
const PERSON_COLUMNS = cols({
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
});
const ORGANISATION_COLUMNS = cols({
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
});
const OWNER_COLUMNS = { person_id: 'uuid', organisation_id: 'uuid' };
const NESTED_COLUMNS = {
  phone_numbers: cols({ ...OWNER_COLUMNS, type: 'text', number: 'text', is_primary: 'smallint' }),
  emails: cols({ ...OWNER_COLUMNS, address: 'text', is_primary: 'smallint' }),
  addresses: cols({
    ...OWNER_COLUMNS,
    type: 'text',
    address: 'text',
    line1: 'text',
    line2: 'text',
    line3: 'text',
    suburb: 'text',
    state: 'text',
    postcode: 'text',
  }),
  financials: cols({ person_id: 'uuid', type: 'text', amount: 'numeric(14,2)', category: 'text' }),
};
const APPLICATION_COLUMNS = cols({
  enterprise_id: 'uuid',
  settlement_date_actual: 'date',
  contract_number: 'text',
  source_of_business: 'text',
  crm_deal_id: 'text',
});
const QUOTE_COLUMNS = cols({
  enterprise_id: 'uuid',
  application_id: 'uuid',
  is_active: 'smallint',
  asset_type: 'text',
  asset_description: 'text',
  financier: 'text',
  total_finance_amount: 'numeric(14,2)',
});
const LEAD_MIXED = [
  'person_id',
  'organisation_id',
  'has_abn',
  'user_assigned_id',
  'purchase_price',
  'deposit',
  'trade_in',
  'finance_amount',
  'residual',
  'finance_term',
  'realestate_owner',
  'finance_last_3_years',
  'applied_already',
  'broker_id',
] as const;
const LEAD_TEXT = [
  'title',
  'description',
  'person_name',
  'organisation_name',
  'abn',
  'use',
  'asset_description',
  'funds_required_within',
  'phone',
  'phone_type',
  'email',
  'email_type',
  'source',
] as const;
const LEAD_COLUMNS = [
  { name: 'enterprise_id', type: 'uuid' },
  ...LEAD_TEXT.map((name) => ({ name, type: 'text' })),
  ...LEAD_MIXED.map((name) => ({ name, type: 'jsonb' })),
];
const SIGNING_DOCUMENT_COLUMNS = cols({
  enterprise_id: 'uuid',
  provider: 'text',
  external_id: 'text',
  status: 'text',
  signed_at: 'timestamptz(3)',
  declined_at: 'timestamptz(3)',
  revoked_at: 'timestamptz(3)',
});

const flag = (value: boolean): number => (value ? 1 : 0);

/** Password hashing is CPU and memory bound; a few at a time keep the thread pool busy. */
const HASH_CONCURRENCY = 4;

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** The composed address line of an address row: non-empty parts joined with ", ". */
export function composeAddressLine(row: AddressInput): string | null {
  const parts = [row.line1, row.line2, row.line3, row.suburb, row.state, row.postcode]
    .map((part) => part?.trim() ?? '')
    .filter((part) => part !== '');
  return parts.length === 0 ? null : parts.join(', ');
}

/**
 * Writes a validated, reference-checked document. Runs inside the caller's transaction; every
 * statement is batched per table, so the number of queries does not grow with the file.
 */
export class ImportWriter {
  constructor(
    private readonly db: SqlExecutor,
    private readonly cipher: FieldCipher,
  ) {}

  async write(doc: ImportDocument): Promise<ImportCounts> {
    const counts = {} as ImportCounts;
    const record = (section: ImportSection, total: number, outcome: UpsertOutcome): void => {
      counts[section] = { total, ...outcome };
    };

    record('enterprises', doc.enterprises.length, await this.writeEnterprises(doc));
    record('users', doc.users.length, await this.writeUsers(doc.users));
    const people = await this.writePeople(doc.people);
    const organisations = await upsertRowsReporting(
      this.db,
      'organisations',
      ORGANISATION_COLUMNS,
      doc.organisations.map(withoutContacts),
    );
    // An owner whose only change is in its phones, emails, addresses or financials was updated too.
    const touchedOwners = await this.writeNestedRows(doc.people, doc.organisations);
    record('people', doc.people.length, countNestedChanges(people, touchedOwners.person_id));
    record('organisations', doc.organisations.length, countNestedChanges(organisations, touchedOwners.organisation_id));
    record(
      'applications',
      doc.applications.length,
      await upsertRows(this.db, 'applications', APPLICATION_COLUMNS, doc.applications),
    );
    record(
      'quotes',
      doc.quotes.length,
      await upsertRows(
        this.db,
        'quotes',
        QUOTE_COLUMNS,
        doc.quotes.map(({ calculation, is_active, ...quote }) => ({
          ...quote,
          is_active: flag(is_active),
          asset_type: calculation?.asset_type ?? null,
          asset_description: calculation?.asset_description ?? null,
          financier: calculation?.financier ?? null,
          total_finance_amount: calculation?.total_finance_amount ?? null,
        })),
      ),
    );
    record('leads', doc.leads.length, await upsertRows(this.db, 'leads', LEAD_COLUMNS, doc.leads));
    record(
      'signing_documents',
      doc.signing_documents.length,
      await upsertRows(this.db, 'signing_documents', SIGNING_DOCUMENT_COLUMNS, doc.signing_documents),
    );
    return counts;
  }

  private async writeEnterprises(doc: ImportDocument): Promise<UpsertOutcome> {
    const stored = await this.storedValues('enterprises', 'signprovider_b_key_encrypted', doc.enterprises);
    return upsertRows(
      this.db,
      'enterprises',
      ENTERPRISE_COLUMNS,
      doc.enterprises.map(({ signprovider_b_key, is_active, ...enterprise }) => ({
        ...enterprise,
        is_active: flag(is_active),
        signprovider_b_key_encrypted: this.encryptUnlessSame(signprovider_b_key, stored.get(enterprise.id)),
      })),
    );
  }

  private async writeUsers(users: readonly UserInput[]): Promise<UpsertOutcome> {
    if (users.length === 0) return { created: 0, updated: 0 };
    const stored = await this.storedValues('users', 'password_hash', users);
    const hashes = await mapLimited(users, HASH_CONCURRENCY, async (user) => {
      const current = stored.get(user.id) ?? null;
      if (user.password_hash !== undefined) return user.password_hash;
      if (user.password === undefined) return current;
      if (current !== null && (await verifyPassword(current, user.password))) return current;
      return hashPassword(user.password);
    });
    const outcome = await upsertRows(
      this.db,
      'users',
      USER_COLUMNS,
      users.map(({ password: _password, password_hash: _hash, enterprise_ids: _ids, is_active, ...user }, i) => ({
        ...user,
        is_active: flag(is_active),
        password_hash: hashes[i],
      })),
    );
    // R12: a password change ends every session of the user.
    const changed = users.filter((user, i) => stored.has(user.id) && stored.get(user.id) !== hashes[i]);
    if (changed.length > 0) {
      await this.db.query(`DELETE FROM access_tokens WHERE user_id = ANY($1::uuid[])`, [changed.map((u) => u.id)]);
    }
    await this.writeMemberships(users);
    return outcome;
  }

  /** A user listing `enterprise_ids` is a member of exactly those enterprises afterwards. */
  private async writeMemberships(users: readonly UserInput[]): Promise<void> {
    const listed = users.filter((u) => u.enterprise_ids !== undefined);
    if (listed.length === 0) return;
    const pairs = listed.flatMap((u) => [...new Set(u.enterprise_ids)].map((e) => [u.id, e] as const));
    const userIds = pairs.map(([u]) => u);
    const enterpriseIds = pairs.map(([, e]) => e);
    await this.db.query(
      `DELETE FROM memberships m
        WHERE m.user_id = ANY($1::uuid[])
          AND NOT EXISTS (SELECT 1 FROM unnest($2::uuid[], $3::uuid[]) AS k(user_id, enterprise_id)
                           WHERE k.user_id = m.user_id AND k.enterprise_id = m.enterprise_id)`,
      [listed.map((u) => u.id), userIds, enterpriseIds],
    );
    await this.db.query(
      `INSERT INTO memberships (user_id, enterprise_id)
       SELECT user_id, enterprise_id FROM unnest($1::uuid[], $2::uuid[]) AS k(user_id, enterprise_id)
       ON CONFLICT DO NOTHING`,
      [userIds, enterpriseIds],
    );
  }

  private async writePeople(people: readonly PersonInput[]): Promise<UpsertOutcome & { written: Set<string> }> {
    const stored = await this.storedValues('people', 'first_name_encrypted', people);
    return upsertRowsReporting(
      this.db,
      'people',
      PERSON_COLUMNS,
      people.map((person) => {
        const { first_name, ...rest } = withoutContacts(person);
        return { ...rest, first_name_encrypted: this.encryptUnlessSame(first_name, stored.get(person.id)) };
      }),
    );
  }

  /**
   * Nested rows of every owner that lists a collection: the listed rows are upserted and the
   * owner's other rows of that collection are deleted. An owner without the key keeps its rows.
   * Returns the ids of the owners (people, organisations) whose nested rows changed.
   */
  private async writeNestedRows(
    people: readonly PersonInput[],
    organisations: readonly OrganisationInput[],
  ): Promise<Record<'person_id' | 'organisation_id', Set<string>>> {
    const touched = { person_id: new Set<string>(), organisation_id: new Set<string>() };
    const owners = [
      ...people.map((owner) => ({ owner, column: 'person_id' as const })),
      ...organisations.map((owner) => ({ owner, column: 'organisation_id' as const })),
    ];
    for (const table of ['phone_numbers', 'emails', 'addresses', 'financials'] as const) {
      const listing = owners.flatMap(({ owner, column }) => {
        const list = owner[table as keyof typeof owner] as readonly Record<string, unknown>[] | undefined;
        return list === undefined ? [] : [{ ownerId: owner.id, column, list }];
      });
      if (listing.length === 0) continue;
      const rows = listing.flatMap(({ ownerId, column, list }) =>
        list.map((row) => this.nestedRow(table, { ...row, [column]: ownerId })),
      );
      for (const column of ['person_id', 'organisation_id'] as const) {
        const ownerIds = listing.filter((l) => l.column === column).map((l) => l.ownerId);
        if (ownerIds.length === 0) continue;
        // TypeORM answers a DELETE ... RETURNING with [rows, count].
        const [deleted] = (await this.db.query(
          `DELETE FROM ${table} WHERE ${column} = ANY($1::uuid[]) AND NOT (id = ANY($2::uuid[]))
           RETURNING ${column}::text AS owner`,
          [ownerIds, rows.map((r) => r.id)],
        )) as [{ owner: string }[], number];
        for (const { owner } of deleted) touched[column].add(owner);
      }
      const { written } = await upsertRowsReporting(this.db, table, NESTED_COLUMNS[table], rows);
      for (const row of rows) {
        if (!written.has(String(row.id).toLowerCase())) continue;
        const column = row.person_id !== undefined && row.person_id !== null ? 'person_id' : 'organisation_id';
        touched[column].add(String(row[column]).toLowerCase());
      }
    }
    return touched;
  }

  private nestedRow(table: keyof typeof NESTED_COLUMNS, row: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = { ...row };
    if (typeof row.is_primary === 'boolean') out.is_primary = flag(row.is_primary);
    if (table === 'addresses' && row.address === undefined) out.address = composeAddressLine(row as AddressInput);
    return out;
  }

  private async storedValues(
    table: 'enterprises' | 'users' | 'people',
    column: string,
    records: readonly { id: string }[],
  ): Promise<Map<string, string | null>> {
    if (records.length === 0) return new Map();
    const rows = await selectRows<{ id: string; value: string | null }>(
      this.db,
      `SELECT id, ${column} AS value FROM ${table} WHERE id = ANY($1::uuid[])`,
      [records.map((r) => r.id)],
    );
    return new Map(rows.map((r) => [r.id, r.value]));
  }

  /**
   * Encryption is randomised, so re-encrypting an unchanged value would rewrite the row on every
   * import. The stored ciphertext is kept when it decrypts to the same text with the current key.
   */
  private encryptUnlessSame(plain: string | null, stored: string | null | undefined): string | null {
    if (plain === null) return null;
    if (stored && !this.cipher.needsRotation(stored)) {
      try {
        if (this.cipher.decrypt(stored) === plain) return stored;
      } catch (error) {
        if (!(error instanceof DecryptionError)) throw error;
      }
    }
    return this.cipher.encrypt(plain);
  }
}

/**
 * Counts owners written only through their nested rows as updated (created ones stay created).
 * Ids are compared as PostgreSQL prints them: lowercase.
 */
function countNestedChanges(
  outcome: UpsertOutcome & { written: Set<string> },
  touchedOwners: ReadonlySet<string>,
): UpsertOutcome {
  let nestedOnly = 0;
  for (const id of touchedOwners) if (!outcome.written.has(id)) nestedOnly++;
  return { created: outcome.created, updated: outcome.updated + nestedOnly };
}

function withoutContacts<T extends { phone_numbers?: unknown; emails?: unknown; addresses?: unknown }>(
  record: T,
): Omit<T, 'phone_numbers' | 'emails' | 'addresses' | 'financials'> & { gst_registered?: number } {
  const {
    phone_numbers: _p,
    emails: _e,
    addresses: _a,
    financials: _f,
    ...rest
  } = record as T & {
    financials?: unknown;
  };
  const out: Record<string, unknown> = rest;
  if (typeof out.gst_registered === 'boolean') out.gst_registered = flag(out.gst_registered);
  return out as Omit<T, 'phone_numbers' | 'emails' | 'addresses' | 'financials'> & { gst_registered?: number };
}
