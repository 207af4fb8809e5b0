import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { importDocument } from '../../src/cli/import/importer.js';
import { verifyPassword } from '../../src/auth/password-hasher.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

type Doc = Record<string, Record<string, unknown>[]>;

const TABLES = [
  'enterprises',
  'users',
  'memberships',
  'people',
  'organisations',
  'phone_numbers',
  'emails',
  'addresses',
  'financials',
  'applications',
  'quotes',
  'leads',
  'signing_documents',
];

/** A file touching every section, with fresh ids so tests stay independent. */
function fullDocument(): { doc: Doc; ids: Record<string, string> } {
  const ids = {
    enterprise: randomUUID(),
    other: randomUUID(),
    user: randomUUID(),
    person: randomUUID(),
    phone: randomUUID(),
    phone2: randomUUID(),
    address: randomUUID(),
    organisation: randomUUID(),
    application: randomUUID(),
    quote: randomUUID(),
    lead: randomUUID(),
    document: randomUUID(),
  };
  const tag = ids.user.slice(0, 8);
  const doc: Doc = {
    enterprises: [
      { id: ids.enterprise, name: 'Acme Finance', is_active: true, signprovider_b_key: 'b-key' },
      { id: ids.other, name: 'Other Finance', is_active: true },
    ],
    users: [
      {
        id: ids.user,
        name: 'Ann Broker',
        email: `ann-${tag}@example.com`,
        is_active: true,
        password: 'first-password',
        enterprise_ids: [ids.enterprise, ids.other],
      },
    ],
    people: [
      {
        id: ids.person,
        enterprise_id: ids.enterprise,
        first_name: 'Jane',
        last_name: 'Citizen',
        birthday: '1985-04-12',
        dependents: 2,
        created_at: '2026-01-02T03:04:05.678Z',
        phone_numbers: [
          { id: ids.phone, type: 'mobile', number: '0400 000 000', is_primary: true },
          { id: ids.phone2, type: 'work', number: '02 9000 0000', is_primary: false },
        ],
        addresses: [
          {
            id: ids.address,
            type: 'Residential',
            line1: '1 Main St',
            line2: '',
            suburb: 'Sydney',
            state: 'New South Wales',
            postcode: '2000',
          },
        ],
        financials: [{ id: randomUUID(), type: 'income', amount: '5200.00', category: 'salary and wages' }],
      },
    ],
    organisations: [
      { id: ids.organisation, enterprise_id: ids.enterprise, legal_name: 'Acme Pty Ltd', gst_registered: true },
    ],
    applications: [{ id: ids.application, enterprise_id: ids.enterprise, source_of_business: 'Referral' }],
    quotes: [
      {
        id: ids.quote,
        enterprise_id: ids.enterprise,
        application_id: ids.application,
        is_active: true,
        calculation: { asset_type: 'Motor Vehicle', total_finance_amount: 45000, balloon: 0 },
      },
    ],
    leads: [
      { id: ids.lead, enterprise_id: ids.enterprise, title: 'Car loan', person_name: 'Jane Citizen', finance_term: 60 },
    ],
    signing_documents: [
      { id: ids.document, enterprise_id: ids.enterprise, provider: 'b', external_id: `env-${tag}`, status: 'sent' },
    ],
  };
  return { doc, ids };
}

describe('import (import-format.md)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  async function rowCounts(): Promise<Record<string, number>> {
    const sql = TABLES.map((t) => `SELECT '${t}' AS name, count(*)::int AS n FROM ${t}`).join(' UNION ALL ');
    const rows = await selectRows<{ name: string; n: number }>(dataSource, sql);
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  }

  it('writes every section, encrypts first names, hashes passwords and derives address lines', async () => {
    const { doc, ids } = fullDocument();
    const outcome = await importDocument(dataSource, cipher, doc);
    expect(outcome).toMatchObject({ ok: true, counts: { people: { total: 1, created: 1, updated: 0 } } });

    const [person] = await selectRows<{ first_name_encrypted: string; created_at: Date; birthday: string }>(
      dataSource,
      `SELECT first_name_encrypted, created_at, birthday FROM people WHERE id = $1`,
      [ids.person],
    );
    expect(person?.first_name_encrypted).not.toContain('Jane');
    expect(cipher.decrypt(person?.first_name_encrypted ?? '')).toBe('Jane');
    expect(person?.created_at.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(person?.birthday).toBe('1985-04-12');

    const [address] = await selectRows<{ address: string }>(dataSource, `SELECT address FROM addresses WHERE id = $1`, [
      ids.address,
    ]);
    expect(address?.address).toBe('1 Main St, Sydney, New South Wales, 2000');

    const [user] = await selectRows<{ password_hash: string }>(
      dataSource,
      `SELECT password_hash FROM users WHERE id = $1`,
      [ids.user],
    );
    expect(user?.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(user?.password_hash ?? '', 'first-password')).toBe(true);

    const [quote] = await selectRows<{ asset_type: string; total_finance_amount: string; is_active: number }>(
      dataSource,
      `SELECT asset_type, total_finance_amount, is_active FROM quotes WHERE id = $1`,
      [ids.quote],
    );
    expect(quote).toEqual({ asset_type: 'Motor Vehicle', total_finance_amount: '45000.00', is_active: 1 });

    const [lead] = await selectRows<{ finance_term: unknown }>(
      dataSource,
      `SELECT finance_term FROM leads WHERE id = $1`,
      [ids.lead],
    );
    expect(lead?.finance_term).toBe(60);
    const members = await selectRows<{ enterprise_id: string }>(
      dataSource,
      `SELECT enterprise_id FROM memberships WHERE user_id = $1`,
      [ids.user],
    );
    expect(members.map((m) => m.enterprise_id).sort()).toEqual([ids.enterprise, ids.other].sort());
  });

  it('changes nothing when the same file is imported twice', async () => {
    const { doc, ids } = fullDocument();
    expect((await importDocument(dataSource, cipher, doc)).ok).toBe(true);
    const snapshot = async () =>
      selectRows(
        dataSource,
        `SELECT p.*, (SELECT password_hash FROM users WHERE id = $2) AS hash,
        (SELECT signprovider_b_key_encrypted FROM enterprises WHERE id = $3) AS b_key,
        (SELECT max(updated_at) FROM phone_numbers WHERE person_id = $1) AS phones_updated
        FROM people p WHERE p.id = $1`,
        [ids.person, ids.user, ids.enterprise],
      );
    const before = await snapshot();
    const counts = await rowCounts();

    const again = await importDocument(dataSource, cipher, doc);
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    for (const section of Object.values(again.counts)) expect(section.created + section.updated).toBe(0);
    expect(await snapshot()).toEqual(before);
    expect(await rowCounts()).toEqual(counts);
  });

  it('updates records in place: memberships become the listed set of the enterprises the file mentions, nested rows are replaced, a new password ends sessions', async () => {
    const { doc, ids } = fullDocument();
    expect((await importDocument(dataSource, cipher, doc)).ok).toBe(true);
    await dataSource.query(`INSERT INTO access_tokens (user_id, token_sha256) VALUES ($1, repeat('a', 64))`, [
      ids.user,
    ]);

    const users = doc.users ?? [];
    const people = doc.people ?? [];
    users[0] = { ...users[0], password: 'second-password', enterprise_ids: [ids.other] };
    people[0] = {
      ...people[0],
      last_name: 'Married',
      phone_numbers: [{ id: ids.phone, type: 'mobile', number: '0411 111 111' }],
    };
    // Both enterprises are mentioned (the enterprises section): the user leaves the one not listed.
    const outcome = await importDocument(dataSource, cipher, { enterprises: doc.enterprises, users, people });
    expect(outcome).toMatchObject({ ok: true, counts: { users: { updated: 1 }, people: { updated: 1 } } });

    const [user] = await selectRows<{ password_hash: string; tokens: number }>(
      dataSource,
      `SELECT password_hash, (SELECT count(*)::int FROM access_tokens WHERE user_id = $1) AS tokens FROM users WHERE id = $1`,
      [ids.user],
    );
    expect(await verifyPassword(user?.password_hash ?? '', 'second-password')).toBe(true);
    expect(user?.tokens).toBe(0);
    const members = await selectRows<{ enterprise_id: string }>(
      dataSource,
      `SELECT enterprise_id FROM memberships WHERE user_id = $1`,
      [ids.user],
    );
    expect(members).toEqual([{ enterprise_id: ids.other }]);
    const phones = await selectRows<{ id: string; number: string }>(
      dataSource,
      `SELECT id, number FROM phone_numbers WHERE person_id = $1`,
      [ids.person],
    );
    expect(phones).toEqual([{ id: ids.phone, number: '0411 111 111' }]);
    // The person's addresses were not listed this time, so they stay.
    const addresses = await selectRows(dataSource, `SELECT id FROM addresses WHERE person_id = $1`, [ids.person]);
    expect(addresses).toHaveLength(1);
  });

  it('never removes a membership in an enterprise the file does not mention', async () => {
    const { doc, ids } = fullDocument();
    expect((await importDocument(dataSource, cipher, doc)).ok).toBe(true);
    const [user] = doc.users ?? [];
    // One enterprise's view of the user (as its export writes it): only that enterprise is listed.
    const onlyOther = { ...user, enterprise_ids: [ids.other] };
    const other = (doc.enterprises ?? []).filter((e) => e.id === ids.other);
    expect((await importDocument(dataSource, cipher, { enterprises: other, users: [onlyOther] })).ok).toBe(true);
    // With no enterprise mentioned at all, an empty list removes nothing either.
    expect((await importDocument(dataSource, cipher, { users: [{ ...user, enterprise_ids: [] }] })).ok).toBe(true);
    const members = await selectRows<{ enterprise_id: string }>(
      dataSource,
      `SELECT enterprise_id FROM memberships WHERE user_id = $1 ORDER BY enterprise_id`,
      [ids.user],
    );
    expect(members.map((m) => m.enterprise_id)).toEqual([ids.enterprise, ids.other].sort());
  });

  it('keeps an existing password hash when the user has no password in the file', async () => {
    const { doc, ids } = fullDocument();
    expect((await importDocument(dataSource, cipher, doc)).ok).toBe(true);
    const [user] = doc.users ?? [];
    const { password: _omitted, ...withoutPassword } = user ?? {};
    expect(
      (await importDocument(dataSource, cipher, { users: [{ ...withoutPassword, name: 'Ann Renamed' }] })).ok,
    ).toBe(true);
    const [row] = await selectRows<{ name: string; password_hash: string }>(
      dataSource,
      `SELECT name, password_hash FROM users WHERE id = $1`,
      [ids.user],
    );
    expect(row?.name).toBe('Ann Renamed');
    expect(await verifyPassword(row?.password_hash ?? '', 'first-password')).toBe(true);
  });

  it('accepts bcrypt hashes from an older system', async () => {
    const { doc, ids } = fullDocument();
    const [user] = doc.users ?? [];
    const { password: _omitted, ...rest } = user ?? {};
    // bcrypt of "secret", as PHP writes it ($2y$).
    const hash = '$2y$10$oxa4nUh9jTfdzJ7sPiOXeOqpcGwFCiETXEfF6ldNxcFgs8mm5rNYm';
    doc.users = [{ ...rest, password_hash: hash }];
    expect((await importDocument(dataSource, cipher, doc)).ok).toBe(true);
    const [row] = await selectRows<{ password_hash: string }>(
      dataSource,
      `SELECT password_hash FROM users WHERE id = $1`,
      [ids.user],
    );
    expect(row?.password_hash).toBe(hash);
  });

  const badDocuments: [string, (doc: Doc, ids: Record<string, string>) => unknown, string][] = [
    ['an unknown top-level key', (doc) => ({ ...doc, widgets: [] }), 'widgets: is not a section of the import format'],
    [
      'an unknown field',
      (doc) => {
        (doc.people ?? [])[0] = { ...(doc.people ?? [])[0], nickname: 'JJ' };
        return doc;
      },
      'people[0].nickname: is not a known field',
    ],
    [
      'a bad nested email',
      (doc) => {
        (doc.people ?? [])[0] = { ...(doc.people ?? [])[0], emails: [{ id: randomUUID(), address: 'nope' }] };
        return doc;
      },
      'people[0].emails[0].address: must be a valid email address',
    ],
    [
      'an id that is not a UUID',
      (doc) => {
        (doc.leads ?? [])[0] = { ...(doc.leads ?? [])[0], id: 'lead-1' };
        return doc;
      },
      'leads[0].id: must be a UUID',
    ],
    [
      'a missing required field',
      (doc) => {
        const { title: _t, ...lead } = (doc.leads ?? [])[0] ?? {};
        doc.leads = [lead];
        return doc;
      },
      'leads[0].title: is required',
    ],
    [
      'a title over 255 characters',
      (doc) => {
        (doc.leads ?? [])[0] = { ...(doc.leads ?? [])[0], title: 'x'.repeat(256) };
        return doc;
      },
      'leads[0].title: must not be greater than 255 characters',
    ],
    [
      'an object in a mixed lead field',
      (doc) => {
        (doc.leads ?? [])[0] = { ...(doc.leads ?? [])[0], deposit: { a: 1 } };
        return doc;
      },
      'leads[0].deposit: must be a string, number, boolean or null',
    ],
    [
      'a status the provider does not have',
      (doc) => {
        (doc.signing_documents ?? [])[0] = { ...(doc.signing_documents ?? [])[0], status: 'signed' };
        return doc;
      },
      'signing_documents[0].status: must be one of: sent, delivered, completed, declined, voided',
    ],
    [
      'an enterprise that does not exist',
      (doc) => {
        (doc.people ?? [])[0] = { ...(doc.people ?? [])[0], enterprise_id: '00000000-0000-4000-8000-000000000000' };
        return doc;
      },
      'people[0].enterprise_id: no enterprise has the id 00000000-0000-4000-8000-000000000000',
    ],
    [
      "a quote on another enterprise's application",
      (doc, ids) => {
        (doc.quotes ?? [])[0] = { ...(doc.quotes ?? [])[0], enterprise_id: ids.other };
        return doc;
      },
      'quotes[0].application_id: the application belongs to another enterprise',
    ],
    [
      'a new user without a password',
      (doc) => {
        const { password: _p, ...user } = (doc.users ?? [])[0] ?? {};
        doc.users = [user];
        return doc;
      },
      'users[0].password: is required for a new user (or give password_hash)',
    ],
    [
      'a duplicate id',
      (doc) => {
        doc.leads = [...(doc.leads ?? []), ...(doc.leads ?? [])];
        return doc;
      },
      'leads[1].id: duplicates leads[0].id',
    ],
    [
      'a document that is not an object',
      () => [],
      '(file): must be a JSON object with the sections of the import format',
    ],
  ];

  it.each(badDocuments)('rejects %s with its path and writes nothing', async (_name, spoil, expected) => {
    const { doc, ids } = fullDocument();
    const before = await rowCounts();
    const outcome = await importDocument(dataSource, cipher, spoil(doc, ids));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.problems).toContain(expected);
    expect(await rowCounts()).toEqual(before);
  });

  it('counts lengths in characters, as the database does: 255 emoji fit, 256 do not', async () => {
    const { doc } = fullDocument();
    (doc.leads ?? [])[0] = { ...(doc.leads ?? [])[0], title: '😀'.repeat(255) };
    expect((await importDocument(dataSource, cipher, doc)).ok).toBe(true);
    const again = fullDocument();
    (again.doc.leads ?? [])[0] = { ...(again.doc.leads ?? [])[0], title: '😀'.repeat(256) };
    const outcome = await importDocument(dataSource, cipher, again.doc);
    expect(outcome.ok ? [] : outcome.problems).toContain('leads[0].title: must not be greater than 255 characters');
  });

  it('reports every problem of a file at once', async () => {
    const { doc } = fullDocument();
    (doc.leads ?? [])[0] = { ...(doc.leads ?? [])[0], title: '', email: 'bad' };
    (doc.people ?? [])[0] = { ...(doc.people ?? [])[0], birthday: '1985-13-40' };
    const outcome = await importDocument(dataSource, cipher, doc);
    expect(outcome.ok ? [] : outcome.problems).toEqual(
      expect.arrayContaining([
        'leads[0].title: must not be empty',
        'leads[0].email: must be a valid email address',
        'people[0].birthday: must be a date (YYYY-MM-DD)',
      ]),
    );
  });

  it('reports each row naming an enterprise nobody has, in file order, and no row naming a stored one or one of the file', async () => {
    const stored = randomUUID();
    const inFile = randomUUID();
    const [missing, otherMissing] = [randomUUID(), randomUUID()];
    expect((await importDocument(dataSource, cipher, { enterprises: [{ id: stored, name: 'Stored' }] })).ok).toBe(true);
    const person = (enterprise: string | null) => ({
      id: randomUUID(),
      enterprise_id: enterprise,
      last_name: 'Reference',
    });
    const outcome = await importDocument(dataSource, cipher, {
      enterprises: [{ id: inFile, name: 'In the file' }],
      users: [
        {
          id: randomUUID(),
          name: 'Member',
          email: `member-${randomUUID()}@example.com`,
          password: 'a long enough password',
          enterprise_ids: [inFile, missing, stored],
        },
      ],
      people: [person(stored), person(inFile), person(missing), person(null), person(otherMissing), person(missing)],
    });
    expect(outcome.ok ? [] : outcome.problems).toEqual([
      `users[0].enterprise_ids[1]: no enterprise has the id ${missing}`,
      `people[2].enterprise_id: no enterprise has the id ${missing}`,
      `people[4].enterprise_id: no enterprise has the id ${otherMissing}`,
      `people[5].enterprise_id: no enterprise has the id ${missing}`,
    ]);
  });

  it('rejects an email held by another user', async () => {
    const first = fullDocument();
    expect((await importDocument(dataSource, cipher, first.doc)).ok).toBe(true);
    const second = fullDocument();
    second.doc.users = [{ ...(second.doc.users ?? [])[0], email: (first.doc.users ?? [])[0]?.email }];
    const outcome = await importDocument(dataSource, cipher, second.doc);
    expect(outcome.ok ? [] : outcome.problems).toContain('users[0].email: is already the email of another user');
  });

  describe('through the CLI', () => {
    const dir = mkdtempSync(join(tmpdir(), 'finance-intake-import-'));
    const env = (): Record<string, string> => ({
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '1',
      APP_KEY: TEST_APP_KEY,
    });

    it('prints a count per resource and exits 0', async () => {
      const file = join(dir, 'good.json');
      writeFileSync(file, JSON.stringify(fullDocument().doc));
      const run = await runCli(['import', file], { env: env() });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('people: 1 (1 created, 0 updated, 0 unchanged)');
      expect(run.stdout).toContain('signing_documents: 1 (1 created, 0 updated, 0 unchanged)');
    });

    it('prints every problem on standard error and exits 1', async () => {
      const file = join(dir, 'bad.json');
      const { doc } = fullDocument();
      (doc.people ?? [])[0] = { ...(doc.people ?? [])[0], emails: [{ id: randomUUID(), address: 'nope' }] };
      writeFileSync(file, JSON.stringify(doc));
      const run = await runCli(['import', file], { env: env() });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('people[0].emails[0].address: must be a valid email address');
      expect(run.stderr).toContain('nothing was written');
    });

    it('rejects a file that is not JSON, or is missing', async () => {
      const file = join(dir, 'broken.json');
      writeFileSync(file, '{"people": [');
      const broken = await runCli(['import', file], { env: env() });
      expect(broken.code).toBe(1);
      expect(broken.stderr).toContain(`${file}: is not valid JSON`);
      const missing = await runCli(['import', join(dir, 'absent.json')], { env: env() });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('absent.json: no such file');
    });
  });
});
