import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NO_ENTERPRISE } from '../../src/database/no-enterprise.js';
import { selectRows } from '../../src/database/sql.js';
import { sqlStateOf } from '../../src/database/sql-state.js';
import { importDocument } from '../../src/cli/import/importer.js';
import { importFixture, type ImportDocument } from '../helpers/fixtures.js';
import { importReferencesOf } from '../../src/cli/import/import-references.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { twoTenants, type TenantRecords } from '../helpers/two-tenants.js';

interface Reference {
  name: string;
  table: string;
  columns: string[];
  target: string;
}

/**
 * The database itself refuses a row tied to another enterprise's record, whoever writes it: every
 * reference between two tables that both carry `enterprise_id` includes it. The references are
 * read from the migrated schema, so a new table's reference is checked without edits here.
 */
describe('tenancy in the keys', () => {
  let t: TestApp;
  let own: TenantRecords;
  let foreign: TenantRecords;
  let references: Reference[];
  let fixtureDoc: ImportDocument;

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = twoTenants();
    fixtureDoc = fixture.doc;
    own = fixture.own;
    foreign = fixture.foreign;
    await importFixture(t, fixture.doc);
    // An endpoint in each enterprise (disabled: nothing is to be delivered), and a delivery of the first.
    for (const tenant of [own, foreign]) {
      await t.dataSource.query(
        `INSERT INTO webhook_endpoints (id, enterprise_id, url, types, secret_encrypted, cursor_xid, enabled)
         VALUES ($1, $2, 'https://hooks.example.test/', '{}', 'x', 0, false)`,
        [randomUUID(), tenant.enterpriseId],
      );
    }
    await t.dataSource.query(
      `INSERT INTO webhook_deliveries (enterprise_id, endpoint_id, webhook_id, event_type, attempt, duration_ms)
       SELECT enterprise_id, id, 'msg_1', 'lead.upserted', 1, 10 FROM webhook_endpoints WHERE enterprise_id = $1`,
      [own.enterpriseId],
    );
    references = await selectRows<Reference>(
      t.dataSource,
      `SELECT con.conname AS name, t.relname AS table, r.relname AS target,
              array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_constraint con
         JOIN pg_class t ON t.oid = con.conrelid
         JOIN pg_class r ON r.oid = con.confrelid
         CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
        WHERE con.contype = 'f' AND t.relnamespace = 'public'::regnamespace
          AND EXISTS (SELECT 1 FROM pg_attribute x WHERE x.attrelid = t.oid AND x.attname = 'enterprise_id' AND NOT x.attisdropped)
          AND EXISTS (SELECT 1 FROM pg_attribute x WHERE x.attrelid = r.oid AND x.attname = 'enterprise_id' AND NOT x.attisdropped)
        GROUP BY con.conname, t.relname, r.relname`,
    );
  });
  afterAll(async () => {
    await t?.close();
  });

  it('every reference between two tenant tables is checked with the enterprise', () => {
    const composite = references.filter((ref) => ref.columns.includes('enterprise_id'));
    // A single-column reference may stay only beside a composite one over the same column.
    const unchecked = references
      .filter((ref) => !ref.columns.includes('enterprise_id'))
      .filter(
        (ref) =>
          !composite.some(
            (c) =>
              c.table === ref.table && c.target === ref.target && ref.columns.every((col) => c.columns.includes(col)),
          ),
      )
      .map((ref) => `${ref.table} (${ref.columns.join(', ')}) -> ${ref.target}: add enterprise_id to the reference`);
    expect(unchecked).toEqual([]);
    expect(composite.map((c) => `${c.table} -> ${c.target}`).sort()).toEqual(
      expect.arrayContaining([
        'addresses -> organisations',
        'addresses -> people',
        'emails -> organisations',
        'emails -> people',
        'financials -> people',
        'phone_numbers -> organisations',
        'phone_numbers -> people',
        'quotes -> applications',
        'webhook_deliveries -> webhook_endpoints',
      ]),
    );
  });

  it("refuses, through SQL, every row pointed at another enterprise's record or moved away from its own", async () => {
    const composite = references.filter((ref) => ref.columns.includes('enterprise_id'));
    const accepted: string[] = [];
    for (const ref of composite) {
      const column = ref.columns.find((c) => c !== 'enterprise_id') ?? '';
      const [row] = await selectRows<{ id: string }>(
        t.dataSource,
        `SELECT id FROM ${ref.table} WHERE enterprise_id = $1 AND ${column} IS NOT NULL LIMIT 1`,
        [own.enterpriseId],
      );
      const [other] = await selectRows<{ id: string }>(
        t.dataSource,
        `SELECT id FROM ${ref.target} WHERE enterprise_id = $1 LIMIT 1`,
        [foreign.enterpriseId],
      );
      expect({ ref: ref.name, row: row !== undefined, other: other !== undefined }).toEqual({
        ref: ref.name,
        row: true,
        other: true,
      });
      for (const [what, sql, parameters] of [
        [
          `${ref.table}.${column} set to another enterprise's ${ref.target}`,
          `UPDATE ${ref.table} SET ${column} = $2 WHERE id = $1`,
          [row?.id, other?.id],
        ],
        [
          `${ref.table} moved to another enterprise`,
          `UPDATE ${ref.table} SET enterprise_id = $2 WHERE id = $1`,
          [row?.id, foreign.enterpriseId],
        ],
      ] as const) {
        const error = await t.dataSource.query(sql, [...parameters]).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        if (sqlStateOf(error) !== '23503') accepted.push(`${what} (${ref.name}): ${String(error)}`);
      }
    }
    expect(accepted).toEqual([]);
  });

  it("gives a row written without its enterprise its owner's, and moves an owner's rows with it", async () => {
    const person = own.ids.people;
    await t.dataSource.query(`INSERT INTO phone_numbers (person_id, type, number) VALUES ($1, 'work', '0400000009')`, [
      person,
    ]);
    const enterpriseOf = async (table: string, column: string, owner: string) =>
      (
        await selectRows<{ enterprise_id: string | null }>(
          t.dataSource,
          `SELECT DISTINCT enterprise_id FROM ${table} WHERE ${column} = $1`,
          [owner],
        )
      ).map((r) => r.enterprise_id);
    expect(await enterpriseOf('phone_numbers', 'person_id', person)).toEqual([own.enterpriseId]);

    // No row holds a NULL enterprise: a record of none is kept under the reserved one, and its rows
    // follow it wherever it moves (ON UPDATE CASCADE of the composite references).
    const refused = await t.dataSource
      .query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, NULL, 'Loner')`, [randomUUID()])
      .then(
        () => 'accepted',
        (error: unknown) => sqlStateOf(error),
      );
    expect(refused).toBe('23502');
    const loner = randomUUID();
    await t.dataSource.query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Loner')`, [
      loner,
      NO_ENTERPRISE,
    ]);
    await t.dataSource.query(`INSERT INTO emails (person_id, address) VALUES ($1, 'loner@example.com')`, [loner]);
    await t.dataSource.query(`INSERT INTO financials (person_id, type, amount) VALUES ($1, 'income', 10)`, [loner]);
    expect(await enterpriseOf('emails', 'person_id', loner)).toEqual([NO_ENTERPRISE]);
    await t.dataSource.query(`UPDATE people SET enterprise_id = $2 WHERE id = $1`, [loner, own.enterpriseId]);
    expect(await enterpriseOf('emails', 'person_id', loner)).toEqual([own.enterpriseId]);
    expect(await enterpriseOf('financials', 'person_id', loner)).toEqual([own.enterpriseId]);
    await t.dataSource.query(`UPDATE people SET enterprise_id = $2 WHERE id = $1`, [loner, foreign.enterpriseId]);
    expect(await enterpriseOf('emails', 'person_id', loner)).toEqual([foreign.enterpriseId]);
    expect(await enterpriseOf('financials', 'person_id', loner)).toEqual([foreign.enterpriseId]);

    // The same for an organisation of no enterprise and its contact rows.
    const company = randomUUID();
    await t.dataSource.query(
      `INSERT INTO organisations (id, enterprise_id, legal_name, gst_registered) VALUES ($1, $2, 'Loner Pty Ltd', 0)`,
      [company, NO_ENTERPRISE],
    );
    await t.dataSource.query(
      `INSERT INTO addresses (organisation_id, type, line1) VALUES ($1, 'business', '1 Loner St')`,
      [company],
    );
    await t.dataSource.query(
      `INSERT INTO phone_numbers (organisation_id, type, number) VALUES ($1, 'work', '0299990000')`,
      [company],
    );
    expect(await enterpriseOf('addresses', 'organisation_id', company)).toEqual([NO_ENTERPRISE]);
    await t.dataSource.query(`UPDATE organisations SET enterprise_id = $2 WHERE id = $1`, [company, own.enterpriseId]);
    expect(await enterpriseOf('addresses', 'organisation_id', company)).toEqual([own.enterpriseId]);
    expect(await enterpriseOf('phone_numbers', 'organisation_id', company)).toEqual([own.enterpriseId]);
    await t.dataSource.query(`UPDATE organisations SET enterprise_id = $2 WHERE id = $1`, [
      company,
      foreign.enterpriseId,
    ]);
    expect(await enterpriseOf('addresses', 'organisation_id', company)).toEqual([foreign.enterpriseId]);
  });

  it("refuses, through the importer, every reference to another enterprise's record, at its field", async () => {
    // Every same-enterprise reference a resource's entity declares (so a new one is covered): the
    // fixture's own record pointed at the other enterprise's record, imported alone.
    const checked: string[] = [];
    for (const resource of TENANT_RESOURCES) {
      for (const reference of importReferencesOf(resource).filter((r) => r.sameEnterprise)) {
        const record = fixtureDoc[resource.path]?.find((r) => r.id === own.ids[resource.path]);
        const target = foreign.ids[reference.section];
        expect({ section: resource.path, record: record !== undefined, target: target !== undefined }).toEqual({
          section: resource.path,
          record: true,
          target: true,
        });
        const outcome = await importDocument(t.dataSource, t.cipher, {
          [resource.path]: [{ ...record, [reference.column]: target }],
        });
        expect(outcome.ok ? [] : outcome.problems).toEqual([
          `${resource.path}[0].${reference.column}: the ${reference.noun} belongs to another enterprise`,
        ]);
        checked.push(`${resource.path}.${reference.column}`);
      }
    }
    expect(checked).toContain('quotes.application_id');
  });

  it("imports a person's rows with the person's enterprise", async () => {
    const rows = await selectRows<{ table: string; mismatched: number }>(
      t.dataSource,
      `SELECT 'phone_numbers' AS table, count(*)::int AS mismatched FROM phone_numbers x JOIN people p ON p.id = x.person_id
        WHERE x.enterprise_id IS DISTINCT FROM p.enterprise_id
       UNION ALL SELECT 'financials', count(*)::int FROM financials x JOIN people p ON p.id = x.person_id
        WHERE x.enterprise_id IS DISTINCT FROM p.enterprise_id
       UNION ALL SELECT 'addresses', count(*)::int FROM addresses x JOIN organisations o ON o.id = x.organisation_id
        WHERE x.enterprise_id IS DISTINCT FROM o.enterprise_id`,
    );
    expect(rows).toEqual([
      { table: 'phone_numbers', mismatched: 0 },
      { table: 'financials', mismatched: 0 },
      { table: 'addresses', mismatched: 0 },
    ]);
    const [counted] = await selectRows<{ n: number }>(
      t.dataSource,
      `SELECT count(*)::int AS n FROM phone_numbers WHERE enterprise_id = $1`,
      [own.enterpriseId],
    );
    expect(counted?.n).toBeGreaterThan(0);
  });
  it('keys every table whose rows all name an enterprise by (id, enterprise_id)', async () => {
    const keys = await selectRows<{ table: string; key: string[] }>(
      t.dataSource,
      `SELECT c.relname AS table, array_agg(a.attname::text ORDER BY k.ord) AS key
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indrelid
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
        WHERE i.indisprimary AND c.relnamespace = 'public'::regnamespace
          AND EXISTS (SELECT 1 FROM pg_attribute x WHERE x.attrelid = c.oid AND x.attname = 'enterprise_id'
                         AND x.attnotnull AND NOT x.attisdropped)
        GROUP BY c.relname`,
    );
    expect(keys.length).toBeGreaterThan(8);
    expect(keys.map((k) => k.table)).toEqual(
      expect.arrayContaining([
        'people',
        'organisations',
        'leads',
        'phone_numbers',
        'emails',
        'addresses',
        'financials',
      ]),
    );
    expect(keys.filter((k) => !k.key.includes('enterprise_id'))).toEqual([]);
    // A look-up by id alone (an import's upsert, a provider's webhook) still reads the key's index.
    for (const k of keys.filter((k) => k.key.includes('id')))
      expect({ table: k.table, first: k.key[0] }).toEqual({ table: k.table, first: 'id' });
  });

  it("refuses a signing document whose provider's id another enterprise's document has (the database keys the pair per enterprise)", async () => {
    const external = `pair-${randomUUID()}`;
    const document = (enterpriseId: string) => ({
      signing_documents: [
        { id: randomUUID(), enterprise_id: enterpriseId, provider: 'a', external_id: external, status: 'sent' },
      ],
    });
    expect((await importDocument(t.dataSource, t.cipher, document(own.enterpriseId))).ok).toBe(true);
    const second = await importDocument(t.dataSource, t.cipher, document(foreign.enterpriseId));
    expect(second.ok ? [] : second.problems).toEqual([
      'signing_documents[0].external_id: is already used by another provider a document',
    ]);
    const [stored] = await selectRows<{ n: number }>(
      t.dataSource,
      `SELECT count(*)::int AS n FROM signing_documents WHERE provider = 'a' AND external_id = $1`,
      [external],
    );
    expect(stored?.n).toBe(1);
  });

  it('keeps one record per id: an application imported into another enterprise moves there', async () => {
    const id = randomUUID();
    const application = (enterpriseId: string) => ({
      applications: [{ id, enterprise_id: enterpriseId, settlement_date_actual: null, contract_number: 'C-1' }],
    });
    for (const tenant of [own, foreign]) {
      const outcome = await importDocument(t.dataSource, t.cipher, application(tenant.enterpriseId));
      expect(outcome.ok).toBe(true);
    }
    const rows = await selectRows<{ enterprise_id: string }>(
      t.dataSource,
      `SELECT enterprise_id FROM applications WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{ enterprise_id: foreign.enterpriseId }]);
  });
});
