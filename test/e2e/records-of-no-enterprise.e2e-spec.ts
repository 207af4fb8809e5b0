import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Exporter } from '../../src/cli/export/exporter.js';
import { importDocument } from '../../src/cli/import/importer.js';
import { NO_ENTERPRISE } from '../../src/database/no-enterprise.js';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * A person, organisation or lead the import file gives `enterprise_id: null` is kept under the
 * reserved enterprise (no NULL in a key), and is otherwise what it was: in no list, 403 to every
 * caller, written out by an export as it was given, unchanged by importing the same file again.
 * The reserved enterprise is no enterprise: a file, a membership or an export cannot name it.
 */
describe('records of no enterprise', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  const person = randomUUID();
  const organisation = randomUUID();
  const lead = randomUUID();
  const file = {
    people: [
      {
        id: person,
        enterprise_id: null,
        first_name: 'Nobody',
        last_name: 'Owns',
        emails: [{ id: randomUUID(), address: 'nobody@example.com', is_primary: true }],
        financials: [{ id: randomUUID(), type: 'income', amount: '10.00' }],
      },
    ],
    organisations: [
      {
        id: organisation,
        enterprise_id: null,
        legal_name: 'Nobody Pty Ltd',
        phone_numbers: [{ id: randomUUID(), type: 'work', number: '0299990001', is_primary: true }],
      },
    ],
    leads: [{ id: lead, enterprise_id: null, title: 'A lead of no enterprise' }],
  };

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
  });
  afterAll(async () => {
    await t?.close();
  });

  async function exported(enterpriseId?: string): Promise<Record<string, Record<string, unknown>[]>> {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Exporter(t.dataSource, t.cipher, { enterpriseId, includeSecrets: false }).run(out);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, Record<string, unknown>[]>;
  }

  it.each([true, false])(
    'imports them under the reserved enterprise, rows and all (loaded straight in: %s), and again changes nothing',
    async (direct) => {
      const first = await importDocument(t.dataSource, t.cipher, file, { direct });
      expect(first.ok ? [] : first.problems).toEqual([]);
      const stored = await selectRows<{ table: string; enterprise_id: string }>(
        t.dataSource,
        `SELECT 'people' AS table, enterprise_id FROM people WHERE id = $1
         UNION ALL SELECT 'emails', enterprise_id FROM emails WHERE person_id = $1
         UNION ALL SELECT 'financials', enterprise_id FROM financials WHERE person_id = $1
         UNION ALL SELECT 'organisations', enterprise_id FROM organisations WHERE id = $2
         UNION ALL SELECT 'phone_numbers', enterprise_id FROM phone_numbers WHERE organisation_id = $2
         UNION ALL SELECT 'leads', enterprise_id FROM leads WHERE id = $3`,
        [person, organisation, lead],
      );
      expect(stored).toEqual(
        ['people', 'emails', 'financials', 'organisations', 'phone_numbers', 'leads'].map((table) => ({
          table,
          enterprise_id: NO_ENTERPRISE,
        })),
      );
      const again = await importDocument(t.dataSource, t.cipher, file, { direct });
      expect(again.ok && again.counts).toMatchObject({
        people: { total: 1, created: 0, updated: 0 },
        organisations: { total: 1, created: 0, updated: 0 },
        leads: { total: 1, created: 0, updated: 0 },
      });
    },
  );

  it('answers 403 for them in both versions, as for any record not of the caller', async () => {
    for (const version of ['v1', 'v2'] as const) {
      for (const path of [`people/${person}`, `organisations/${organisation}`, `leads/${lead}`]) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/${version}/${path}`,
          headers: apiHeaders(version, token, tenant.enterpriseId),
        });
        expect({ version, path, status: res.statusCode }).toEqual({ version, path, status: 403 });
      }
    }
  });

  it('answers for the reserved enterprise exactly what it answers for an enterprise that does not exist', async () => {
    const unknown = randomUUID();
    for (const version of ['v1', 'v2'] as const) {
      const answer = async (id: string) => {
        const record = await t.app.inject({
          method: 'GET',
          url: `/api/${version}/enterprises/${id}`,
          headers: apiHeaders(version, token),
        });
        const list = await t.app.inject({
          method: 'GET',
          url: `/api/${version}/people`,
          headers: apiHeaders(version, token, id),
        });
        return {
          record: { status: record.statusCode, body: record.body.replaceAll(id, '{id}') },
          list: { status: list.statusCode, body: list.body.replaceAll(id, '{id}') },
        };
      };
      const reserved = await answer(NO_ENTERPRISE);
      expect(reserved).toEqual(await answer(unknown));
      expect({ version, record: reserved.record.status }).toEqual({ version, record: 404 });
    }
  });

  it('exports them with enterprise_id null, and the reserved enterprise in no export', async () => {
    const all = await exported();
    expect(all.people?.find((p) => p.id === person)?.enterprise_id).toBeNull();
    expect(all.organisations?.find((o) => o.id === organisation)?.enterprise_id).toBeNull();
    expect(all.leads?.find((l) => l.id === lead)?.enterprise_id).toBeNull();
    expect(all.enterprises?.map((e) => e.id)).not.toContain(NO_ENTERPRISE);
    const reserved = await exported(NO_ENTERPRISE);
    expect({ enterprises: reserved.enterprises, people: reserved.people, leads: reserved.leads }).toEqual({
      enterprises: [],
      people: [],
      leads: [],
    });
  });

  it('refuses a file that names the reserved enterprise, at the field, writing nothing', async () => {
    const named = randomUUID();
    const namingIt = {
      users: [
        {
          id: randomUUID(),
          name: 'Sneaky',
          email: `sneaky-${named}@example.com`,
          password: 'a long enough password',
          enterprise_ids: [NO_ENTERPRISE],
        },
      ],
      people: [{ id: named, enterprise_id: NO_ENTERPRISE, last_name: 'Named' }],
    };
    const outcome = await importDocument(t.dataSource, t.cipher, {
      enterprises: [{ id: NO_ENTERPRISE, name: 'Taken over' }],
      ...namingIt,
    });
    expect(outcome.ok ? [] : outcome.problems).toEqual([
      'enterprises[0].id: is reserved for the records of no enterprise',
    ]);
    const without = await importDocument(t.dataSource, t.cipher, namingIt);
    expect(without.ok ? [] : without.problems).toEqual([
      `users[0].enterprise_ids[0]: no enterprise has the id ${NO_ENTERPRISE}`,
      `people[0].enterprise_id: no enterprise has the id ${NO_ENTERPRISE}`,
    ]);
    const [stored] = await selectRows<{ people: number; name: string }>(
      t.dataSource,
      `SELECT (SELECT count(*)::int FROM people WHERE id = $1) AS people,
              (SELECT name FROM enterprises WHERE id = $2) AS name`,
      [named, NO_ENTERPRISE],
    );
    expect(stored).toEqual({ people: 0, name: 'Records of no enterprise' });
  });

  it('lets no membership name the reserved enterprise', async () => {
    const refused = await t.dataSource
      .query(`INSERT INTO memberships (user_id, enterprise_id) VALUES ($1, $2)`, [tenant.user.id, NO_ENTERPRISE])
      .then(
        () => 'accepted',
        (error: unknown) => (error as { code?: string }).code,
      );
    expect(refused).toBe('23514');
  });
});
