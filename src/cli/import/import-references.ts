import { selectRows, type SqlExecutor } from '../../database/sql.js';
import { problem, type ProblemPath } from './import-problems.js';
import type { ImportDocument } from './import-schema.js';

interface Located<T> {
  path: ProblemPath;
  value: T;
}

type NestedTable = 'phone_numbers' | 'emails' | 'addresses' | 'financials';
type OwnerKind = 'person' | 'organisation';

interface NestedRowRef {
  path: ProblemPath;
  id: string;
  ownerKind: OwnerKind;
  ownerId: string;
}

/** Reports every value seen before at another path (`people[4].id: duplicates people[1].id`). */
function duplicates<T>(items: readonly Located<T>[], key: (value: T) => string): string[] {
  const firstSeen = new Map<string, ProblemPath>();
  const problems: string[] = [];
  for (const item of items) {
    const k = key(item.value);
    const earlier = firstSeen.get(k);
    if (earlier) problems.push(problem(item.path, `duplicates ${formatPathOf(earlier)}`));
    else firstSeen.set(k, item.path);
  }
  return problems;
}

function formatPathOf(path: ProblemPath): string {
  return problem(path, '').slice(0, -2);
}

function located(section: string, records: readonly { id: string }[]): Located<string>[] {
  return records.map((r, i) => ({ path: [section, i, 'id'], value: r.id }));
}

function nestedRows(doc: ImportDocument): Map<NestedTable, NestedRowRef[]> {
  const rows = new Map<NestedTable, NestedRowRef[]>(
    (['phone_numbers', 'emails', 'addresses', 'financials'] as const).map((t) => [t, []]),
  );
  const owners = [
    ...doc.people.map((owner, i) => ({ owner, section: 'people', ownerKind: 'person' as const, i })),
    ...doc.organisations.map((owner, i) => ({
      owner,
      section: 'organisations',
      ownerKind: 'organisation' as const,
      i,
    })),
  ];
  for (const { owner, section, ownerKind, i } of owners) {
    const lists: [NestedTable, readonly { id: string }[] | undefined][] = [
      ['phone_numbers', owner.phone_numbers],
      ['emails', owner.emails],
      ['addresses', owner.addresses],
      ['financials', 'financials' in owner ? owner.financials : undefined],
    ];
    for (const [table, list] of lists) {
      list?.forEach((row, j) =>
        rows.get(table)?.push({ path: [section, i, table, j, 'id'], id: row.id, ownerKind, ownerId: owner.id }),
      );
    }
  }
  return rows;
}

async function existingIds(db: SqlExecutor, table: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await selectRows<{ id: string }>(db, `SELECT id FROM ${table} WHERE id = ANY($1::uuid[])`, [ids]);
  return new Set(rows.map((r) => r.id));
}

/**
 * Checks that need the whole file and the database: duplicate ids, references that must resolve,
 * unique keys held by other records, and new users without a password. All lookups are batched,
 * one query per table, whatever the size of the file.
 */
export async function checkReferences(db: SqlExecutor, doc: ImportDocument): Promise<string[]> {
  const problems: string[] = [];

  for (const section of [
    'enterprises',
    'users',
    'people',
    'organisations',
    'applications',
    'quotes',
    'leads',
    'signing_documents',
  ] as const) {
    const records: readonly { id: string }[] = doc[section];
    problems.push(...duplicates(located(section, records), (id) => id));
  }
  const nested = nestedRows(doc);
  for (const refs of nested.values()) {
    problems.push(
      ...duplicates(
        refs.map((r) => ({ path: r.path, value: r.id })),
        (id) => id.toLowerCase(),
      ),
    );
  }
  problems.push(
    ...duplicates(
      doc.users.map((u, i) => ({ path: ['users', i, 'email'], value: u.email })),
      (email) => email.toLowerCase(),
    ),
  );
  problems.push(
    ...duplicates(
      doc.signing_documents.map((d, i) => ({ path: ['signing_documents', i, 'external_id'], value: d })),
      (d) => `${d.provider}:${d.external_id}`,
    ),
  );

  problems.push(...(await checkEnterprises(db, doc)));
  problems.push(...(await checkQuoteApplications(db, doc)));
  problems.push(...(await checkUsers(db, doc)));
  problems.push(...(await checkSigningDocuments(db, doc)));
  problems.push(...(await checkNestedOwners(db, nested)));
  return problems;
}

async function checkEnterprises(db: SqlExecutor, doc: ImportDocument): Promise<string[]> {
  const refs: Located<string>[] = [];
  for (const section of ['people', 'organisations', 'applications', 'quotes', 'leads', 'signing_documents'] as const) {
    doc[section].forEach((r, i) => {
      if (r.enterprise_id !== null) refs.push({ path: [section, i, 'enterprise_id'], value: r.enterprise_id });
    });
  }
  doc.users.forEach((u, i) =>
    u.enterprise_ids?.forEach((e, j) => refs.push({ path: ['users', i, 'enterprise_ids', j], value: e })),
  );
  const inFile = new Set(doc.enterprises.map((e) => e.id.toLowerCase()));
  const wanted = [...new Set(refs.map((r) => r.value.toLowerCase()).filter((id) => !inFile.has(id)))];
  const inDatabase = await existingIds(db, 'enterprises', wanted);
  return refs
    .filter((r) => !inFile.has(r.value.toLowerCase()) && !inDatabase.has(r.value.toLowerCase()))
    .map((r) => problem(r.path, `no enterprise has the id ${r.value}`));
}

async function checkQuoteApplications(db: SqlExecutor, doc: ImportDocument): Promise<string[]> {
  const owners = new Map(doc.applications.map((a) => [a.id.toLowerCase(), a.enterprise_id.toLowerCase()]));
  const wanted = doc.quotes
    .map((q) => q.application_id?.toLowerCase())
    .filter((id): id is string => id !== undefined && !owners.has(id));
  if (wanted.length > 0) {
    const rows = await selectRows<{ id: string; enterprise_id: string }>(
      db,
      `SELECT id, enterprise_id FROM applications WHERE id = ANY($1::uuid[])`,
      [[...new Set(wanted)]],
    );
    for (const row of rows) owners.set(row.id, row.enterprise_id);
  }
  const problems: string[] = [];
  doc.quotes.forEach((q, i) => {
    if (q.application_id === null) return;
    const owner = owners.get(q.application_id.toLowerCase());
    const path = ['quotes', i, 'application_id'];
    if (owner === undefined) problems.push(problem(path, `no application has the id ${q.application_id}`));
    else if (owner !== q.enterprise_id.toLowerCase())
      problems.push(problem(path, 'the application belongs to another enterprise'));
  });
  return problems;
}

async function checkUsers(db: SqlExecutor, doc: ImportDocument): Promise<string[]> {
  if (doc.users.length === 0) return [];
  const existing = await existingIds(
    db,
    'users',
    doc.users.map((u) => u.id),
  );
  const holders = await selectRows<{ id: string; email: string }>(
    db,
    `SELECT id, lower(email) AS email FROM users WHERE lower(email) = ANY($1::text[])`,
    [doc.users.map((u) => u.email.toLowerCase())],
  );
  const holderOf = new Map(holders.map((h) => [h.email, h.id]));
  const problems: string[] = [];
  doc.users.forEach((u, i) => {
    if (!existing.has(u.id.toLowerCase()) && u.password === undefined && u.password_hash === undefined) {
      problems.push(problem(['users', i, 'password'], 'is required for a new user (or give password_hash)'));
    }
    const holder = holderOf.get(u.email.toLowerCase());
    if (holder !== undefined && holder !== u.id.toLowerCase()) {
      problems.push(problem(['users', i, 'email'], 'is already the email of another user'));
    }
  });
  return problems;
}

async function checkSigningDocuments(db: SqlExecutor, doc: ImportDocument): Promise<string[]> {
  if (doc.signing_documents.length === 0) return [];
  const rows = await selectRows<{ id: string; provider: string; external_id: string }>(
    db,
    `SELECT d.id, d.provider, d.external_id FROM signing_documents d
       JOIN unnest($1::text[], $2::text[]) AS k(provider, external_id)
         ON d.provider = k.provider AND d.external_id = k.external_id`,
    [doc.signing_documents.map((d) => d.provider), doc.signing_documents.map((d) => d.external_id)],
  );
  const holderOf = new Map(rows.map((r) => [`${r.provider}:${r.external_id}`, r.id]));
  const problems: string[] = [];
  doc.signing_documents.forEach((d, i) => {
    const holder = holderOf.get(`${d.provider}:${d.external_id}`);
    if (holder !== undefined && holder !== d.id.toLowerCase()) {
      problems.push(
        problem(['signing_documents', i, 'external_id'], `is already used by another provider ${d.provider} document`),
      );
    }
  });
  return problems;
}

async function checkNestedOwners(db: SqlExecutor, nested: Map<NestedTable, NestedRowRef[]>): Promise<string[]> {
  const problems: string[] = [];
  for (const [table, refs] of nested) {
    if (refs.length === 0) continue;
    const ownerColumns =
      table === 'financials' ? `person_id, NULL::uuid AS organisation_id` : `person_id, organisation_id`;
    const rows = await selectRows<{ id: string; person_id: string | null; organisation_id: string | null }>(
      db,
      `SELECT id, ${ownerColumns} FROM ${table} WHERE id = ANY($1::uuid[])`,
      [refs.map((r) => r.id)],
    );
    const ownerOf = new Map(
      rows.map((r) => [r.id, r.person_id !== null ? `person:${r.person_id}` : `organisation:${r.organisation_id}`]),
    );
    for (const ref of refs) {
      const owner = ownerOf.get(ref.id.toLowerCase());
      if (owner !== undefined && owner !== `${ref.ownerKind}:${ref.ownerId.toLowerCase()}`) {
        problems.push(problem(ref.path, `is the id of a row that belongs to another ${owner.split(':')[0]}`));
      }
    }
  }
  return problems;
}
