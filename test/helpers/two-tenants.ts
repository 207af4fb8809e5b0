import { randomBytes, randomUUID } from 'node:crypto';
import { ENTITY_SECTIONS } from '../../src/cli/import/entity-sections.js';
import { orderRanks } from '../../src/database/column-order-checks.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import type { ImportDocument } from './fixtures.js';

/** The sections the fixture fills: the enterprises, then one per tenant resource (its path). */
export const FIXTURE_SECTIONS: readonly string[] = [
  'enterprises',
  ...TENANT_RESOURCES.map((resource) => resource.path),
];

/** Sections the suites name directly; every other descriptor's section is reached by its path. */
type NamedSection = 'enterprises' | 'users' | 'leads' | 'people' | 'organisations' | 'applications' | 'quotes';

/** The first record's id by section: typed for the sections suites name, by path for the rest. */
export type FixtureIds = Readonly<Record<NamedSection, string>> & Readonly<Record<string, string | undefined>>;

/** The records of one tenant, by the path segment that names them. */
export interface TenantRecords {
  readonly enterpriseId: string;
  readonly user: { id: string; email: string; password: string };
  /** The first record's id by API resource (`leads`, `people`, ...), including the enterprise and the user. */
  readonly ids: FixtureIds;
  /** Every id of every row of this tenant, nested rows included. */
  readonly allIds: readonly string[];
  /** Distinctive text values stored on this tenant's records (names, numbers, emails ...). */
  readonly markers: readonly string[];
}

/** Whether a path segment names a section of the fixture (a tenant resource or the enterprises). */
export function isFixtureSection(name: string | undefined): name is string {
  return FIXTURE_SECTIONS.includes(name ?? '');
}

/** When the fixture's records were created: the list order is newest first, then by id. */
const CREATED = '2025-03-01T09:00:00.000Z';
const CREATED_LATER = '2025-03-02T09:00:00.000Z';

/**
 * With `several`, three of each resource: the one named in `ids`, one created at the same
 * instant (the id decides their order) and one a day later, so every list shows its newest-first order.
 */
const TIMES = { one: [CREATED], several: [CREATED, CREATED, CREATED_LATER] } as const;

/**
 * How many records of each resource a tenant gets: `one`, `several` (three), or, for the suites
 * that page through lists or count their queries, one record per time in `paged` of every
 * resource listed a page at a time (the first is the one named in `ids`) and one of the others.
 */
export type RecordsOfEach = keyof typeof TIMES | { readonly paged: readonly string[] };

/** The resources listed a page at a time (the others list every row at once). */
export const PAGED_SECTIONS: readonly string[] = TENANT_RESOURCES.filter((resource) => resource.rows.paged).map(
  (resource) => resource.path,
);

/** The creation time of each record of a section. */
function timesOf(each: RecordsOfEach, section: string): readonly string[] {
  if (typeof each === 'string') return TIMES[each];
  return PAGED_SECTIONS.includes(section) ? each.paged : TIMES.one;
}

/** A password hash for the members who never log in (argon2 would slow the import down). */
const UNUSED_PASSWORD_HASH = '$2b$04$abcdefghijklmnopqrstuuJzGzJ0YxGm1wQm5Gq7mLHqK6m1b2fEe';

function tenantRecords(label: 'own' | 'foreign', each: RecordsOfEach): { doc: ImportDocument; records: TenantRecords } {
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
  /** The ids of a resource's records; the first is `ids[resource]`. */
  const idsOf = (section: string) => timesOf(each, section).map(() => id());
  const all = new Map(FIXTURE_SECTIONS.map((section) => [section, idsOf(section)]));
  const idsIn = (section: string): string[] => all.get(section) ?? [];
  const ids = Object.fromEntries(FIXTURE_SECTIONS.map((section) => [section, idsIn(section)[0]])) as FixtureIds;
  /** One record per id of the resource, each with its creation time. */
  const records = (section: string, record: (n: number) => Record<string, unknown>) =>
    idsIn(section).map((recordId, n) => ({ id: recordId, ...record(n), created_at: timesOf(each, section)[n] }));
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
  /**
   * Each section's n-th record, by section. A section derived from its entity needs none (its
   * sample records are used); a hand-written one without an entry here fails every suite.
   */
  const recordOf: Record<string, (n: number) => Record<string, unknown>> = {
    enterprises: (n) => ({ name: mark(`enterprise${n}`), is_active: true }),
    // The first user logs in; every user is a member of the enterprise, and the first of every enterprise.
    users: (n) => ({
      name: mark(`user${n}`),
      email: n === 0 ? email : `${mark(`member${n}`)}@example.com`,
      ...(n === 0 ? { password } : { password_hash: UNUSED_PASSWORD_HASH }),
      is_active: true,
      enterprise_ids: n === 0 ? idsIn('enterprises') : [ids.enterprises],
    }),
    people: (n) =>
      n === 0
        ? {
            enterprise_id: ids.enterprises,
            first_name: mark('first'),
            last_name: mark('last'),
            licence: mark('licence'),
            dependents_ages: mark('ages'),
            ...contacts(),
            financials: [{ id: id(), type: 'income', amount: '5200.00', category: mark('category') }],
          }
        : { enterprise_id: ids.enterprises, first_name: mark(`first${n}`), last_name: mark(`last${n}`) },
    organisations: (n) =>
      n === 0
        ? {
            enterprise_id: ids.enterprises,
            legal_name: mark('legal'),
            trust_name: mark('trust'),
            acn: mark('acn'),
            website: `https://${mark('site')}.example.com`,
            ...contacts(),
          }
        : { enterprise_id: ids.enterprises, legal_name: mark(`legal${n}`) },
    // Applications have no entry: their section is derived from the entity, so are their records.
    // Every quote is of the first application; the first quote is its active one.
    quotes: (n) => ({
      enterprise_id: ids.enterprises,
      application_id: ids.applications,
      is_active: n === 0,
      calculation: {
        asset_type: mark(`asset${n}`),
        asset_description: mark(`asset-description${n}`),
        financier: mark(`financier${n}`),
        total_finance_amount: '45000.00',
      },
    }),
    leads: (n) => ({
      enterprise_id: ids.enterprises,
      title: mark(`lead${n}`),
      description: mark(`lead-description${n}`),
      person_name: mark(`lead-person${n}`),
      organisation_name: mark(`lead-organisation${n}`),
    }),
  };
  /** A section derived from its entity gets sample records, every text a marked value, unless recordOf has its own. */
  const sampled = (section: string): ((n: number) => Record<string, unknown>) | undefined => {
    const derived = ENTITY_SECTIONS.find((entitySection) => entitySection.name === section);
    return (
      derived &&
      ((n) =>
        derived.sample(n, {
          enterpriseId: ids.enterprises,
          recordOf: (referenced) => ids[referenced],
          text: (column) => mark(`${section}-${column}${n}`),
        }))
    );
  };
  const doc: ImportDocument = {};
  for (const section of FIXTURE_SECTIONS) {
    const record = recordOf[section] ?? sampled(section);
    if (!record) throw new Error(`test/helpers/two-tenants.ts has no records for "${section}": add them to recordOf`);
    doc[section] = records(section, record);
  }
  doc.signing_documents = [
    { id: id(), enterprise_id: ids.enterprises, provider: 'a', external_id: mark('doc-a'), status: 'sent' },
  ];
  return {
    doc,
    records: { enterpriseId: ids.enterprises, user: { id: ids.users, email, password }, ids, allIds, markers },
  };
}

/**
 * Two enterprises with one record of every resource each (nested rows too), and a user in each
 * that belongs to its own enterprise only; with `several`, three of each resource (nested rows
 * on the first), the user a member of the tenant's three enterprises and two more users in the
 * first. Every text value is distinctive, so a test can look for any of the foreign tenant's
 * values in an answer. The foreign tenant gets as many records as the own one unless told.
 */
export function twoTenants(
  each: RecordsOfEach = 'one',
  foreignEach: RecordsOfEach = each,
): {
  doc: ImportDocument;
  own: TenantRecords;
  foreign: TenantRecords;
} {
  const own = tenantRecords('own', each);
  const foreign = tenantRecords('foreign', foreignEach);
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

/** Column types a list could be ordered by by mistake (smallint columns are 0/1 flags here). */
export const SORTABLE_TYPE = /^(timestamp|date|numeric|integer|bigint)/;

/**
 * Gives every date, time and number column of every tenant table the enterprise's records
 * distinct values, the newest record a middle one: a list ordered by any such column, up or
 * down, then disagrees with newest first, so the order checks see it. Derived from the schema,
 * so a new resource's `due_at` is covered without a line here; a column its entity's CHECKs put
 * after another (`ends_at > starts_at`) gets its rank's hour, day or unit more, and one statement
 * sets a table's columns together, so those CHECKs hold. Columns whose other constraints refuse
 * the values are left as they are (the order check names them).
 */
export async function disagreeWithNewestFirst(
  db: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  tables: readonly string[],
  enterpriseId: string,
): Promise<void> {
  for (const table of tables) {
    const entity = TENANT_RESOURCES.find((resource) => resource.rows.table === table)?.entity;
    const ranks = entity ? orderRanks(entity) : new Map<string, number>();
    const columns = (await db.query(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = $1 AND column_name NOT IN ('id', 'enterprise_id', 'created_at')`,
      [table],
    )) as { column_name: string; data_type: string }[];
    // The newest record gets rank 1, the next 2, the third 0, then 3, 4, ...
    const ranked = `(SELECT id, CASE n WHEN 1 THEN 1 WHEN 2 THEN 2 WHEN 3 THEN 0 ELSE n - 1 END AS rank
        FROM (SELECT id, row_number() OVER (ORDER BY created_at DESC, id DESC) AS n FROM ${table} WHERE enterprise_id = $1) o)`;
    const sets = columns
      .filter(({ data_type: type }) => SORTABLE_TYPE.test(type))
      .map(({ column_name: column, data_type: type }) => {
        const after = ranks.get(column) ?? 0;
        const value = type.startsWith('timestamp')
          ? `timestamptz '2024-01-01T00:00:00Z' + r.rank * interval '1 day' + ${after} * interval '1 hour'`
          : type === 'date'
            ? `date '2024-01-01' + (2 * r.rank + ${after})::int`
            : `2 * r.rank + 1 + ${after}`;
        return `${column} = ${value}`;
      });
    const update = (assignments: readonly string[]) =>
      db.query(`UPDATE ${table} x SET ${assignments.join(', ')} FROM ${ranked} r WHERE r.id = x.id`, [enterpriseId]);
    if (sets.length === 0) continue;
    try {
      await update(sets);
    } catch {
      // A value some constraint refuses: each column on its own, those refused left as imported.
      for (const set of sets) await update([set]).catch(() => undefined);
    }
  }
}
