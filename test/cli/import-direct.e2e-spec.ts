import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { importDocument, importStream, type ImportOutcome } from '../../src/cli/import/importer.js';
import type { Progress } from '../../src/cli/progress.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

type Doc = Record<string, Record<string, unknown>[]>;

/** A file that creates an enterprise and its people, each with nested rows of every kind. */
function creatingDocument(people = 3): { doc: Doc; enterprise: string; personIds: string[] } {
  const enterprise = randomUUID();
  const personIds = Array.from({ length: people }, () => randomUUID());
  const doc: Doc = {
    enterprises: [{ id: enterprise, name: 'Direct Finance', is_active: true }],
    people: personIds.map((id, i) => ({
      id,
      enterprise_id: enterprise,
      first_name: i === 0 ? null : `Ann ${i}`,
      last_name: `Citizen\t${i}\\`,
      birthday: '1980-02-03',
      ...(i === 1 ? { created_at: '2025-01-02T03:04:05.678Z', updated_at: '2025-02-03T04:05:06.789Z' } : {}),
      phone_numbers: [{ id: randomUUID(), type: 'mobile', number: `0400 000 00${i}`, is_primary: true }],
      emails: [{ id: randomUUID(), address: `ann${i}@example.com`, is_primary: true }],
      addresses: [{ id: randomUUID(), type: 'home', line1: `${i} Main St`, suburb: 'Sydney', state: 'NSW' }],
      financials: [
        { id: randomUUID(), type: 'income', amount: 1000.5 + i, category: 'salary' },
        { id: randomUUID(), type: 'expense', amount: 20, category: 'rent' },
      ],
    })),
  };
  return { doc, enterprise, personIds };
}

/** What an enterprise's people, nested rows, change entries and row counts are, ids and transaction times aside. */
async function stored(dataSource: DataSource, enterprise: string): Promise<unknown> {
  const people = await selectRows<Record<string, unknown>>(
    dataSource,
    `SELECT p.last_name, p.birthday::text, p.first_name_encrypted IS NULL AS no_first_name,
            p.created_at = p.updated_at AS same_times,
            CASE WHEN p.created_at < '2026-01-01' THEN p.created_at::text END AS created_given,
            CASE WHEN p.updated_at < '2026-01-01' THEN p.updated_at::text END AS updated_given,
            (SELECT json_agg(json_build_array(n.type, n.number, n.is_primary, n.created_at = n.updated_at AND n.created_at > now() - interval '1 day'))
               FROM phone_numbers n WHERE n.person_id = p.id) AS phones,
            (SELECT json_agg(json_build_array(e.address, e.is_primary)) FROM emails e WHERE e.person_id = p.id) AS emails,
            (SELECT json_agg(json_build_array(a.type, a.address, a.line1, a.suburb, a.state)) FROM addresses a WHERE a.person_id = p.id) AS addresses,
            (SELECT json_agg(json_build_array(f.type, f.amount::text, f.category) ORDER BY f.amount) FROM financials f WHERE f.person_id = p.id) AS financials,
            (SELECT count(*)::int FROM change_log c WHERE c.record_type = 'person' AND c.record_id = p.id AND c.action = 'upserted') AS entries
       FROM people p WHERE p.enterprise_id = $1 ORDER BY p.last_name`,
    [enterprise],
  );
  const counts = await selectRows<Record<string, unknown>>(
    dataSource,
    `SELECT table_name, sum(row_delta)::int AS rows FROM tenant_count_deltas WHERE enterprise_id = $1
      GROUP BY table_name HAVING sum(row_delta) <> 0 ORDER BY table_name`,
    [enterprise],
  );
  return { people, counts };
}

describe('loading the people of a file that creates them straight into their tables', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let cipher: FieldCipher;

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource({ url: database.url, poolMax: 2 });
    cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  const created = (outcome: ImportOutcome): unknown => outcome.ok && outcome.counts.people;

  it('writes the same rows, counts and change entries as staging them first', async () => {
    const straight = creatingDocument();
    const staged = creatingDocument();
    const viaStraight = await importDocument(dataSource, cipher, straight.doc);
    const viaStaging = await importDocument(dataSource, cipher, staged.doc, { direct: false });
    expect(viaStraight).toMatchObject({ ok: true, loadedStraightIn: 3 });
    expect(viaStraight.readAgain).toBeUndefined();
    expect(viaStaging).toMatchObject({ ok: true, loadedStraightIn: 0 });
    expect(created(viaStraight)).toEqual({ total: 3, created: 3, updated: 0 });
    expect(viaStraight.ok && viaStraight.counts).toEqual(viaStaging.ok && viaStaging.counts);
    const rows = await stored(dataSource, straight.enterprise);
    expect(rows).toEqual(await stored(dataSource, staged.enterprise));
    expect((rows as { people: unknown[] }).people).toHaveLength(3);
    const [first] = await selectRows<{ first_name_encrypted: string }>(
      dataSource,
      `SELECT first_name_encrypted FROM people WHERE id = $1`,
      [straight.personIds[1]],
    );
    expect(cipher.decrypt(first?.first_name_encrypted ?? '')).toBe('Ann 1');
  });

  it('stages a file whose first person is stored (a re-import), reading it once', async () => {
    const { doc } = creatingDocument();
    expect(await importDocument(dataSource, cipher, doc)).toMatchObject({ ok: true, loadedStraightIn: 3 });
    const again = await importDocument(dataSource, cipher, doc);
    expect(again).toMatchObject({ ok: true, loadedStraightIn: 0 });
    expect(again.readAgain).toBeUndefined();
    expect(created(again)).toEqual({ total: 3, created: 0, updated: 0 });
  });

  it('reads a file again, staged, when a later person turns out to be stored', async () => {
    const stored = creatingDocument(1);
    expect((await importDocument(dataSource, cipher, stored.doc)).ok).toBe(true);
    const { doc } = creatingDocument(2);
    const mixed: Doc = { ...doc, people: [...(doc.people ?? []), ...(stored.doc.people ?? [])] };
    const outcome = await importDocument(dataSource, cipher, mixed);
    expect(outcome).toMatchObject({ ok: true, readAgain: true, loadedStraightIn: 0 });
    expect(created(outcome)).toEqual({ total: 3, created: 2, updated: 0 });
  });

  it('lists the same problems as staging when the database refuses a row loaded straight in', async () => {
    const duplicate = creatingDocument();
    const people = duplicate.doc.people ?? [];
    people[2] = { ...people[2], id: people[0]?.id };
    const noEnterprise = creatingDocument();
    for (const person of noEnterprise.doc.people ?? []) person.enterprise_id = randomUUID();
    const otherOwner = creatingDocument(1);
    expect((await importDocument(dataSource, cipher, otherOwner.doc)).ok).toBe(true);
    const takesPhone = creatingDocument();
    const phone = (otherOwner.doc.people?.[0]?.phone_numbers as Record<string, unknown>[])[0];
    (takesPhone.doc.people?.[1]?.phone_numbers as Record<string, unknown>[]).push({ ...phone, is_primary: false });

    for (const { doc } of [duplicate, noEnterprise, takesPhone]) {
      const straight = await importDocument(dataSource, cipher, doc);
      const staged = await importDocument(dataSource, cipher, doc, { direct: false });
      expect(straight.ok).toBe(false);
      expect(straight.readAgain).toBe(true);
      expect({ ...straight, readAgain: undefined }).toEqual(staged);
    }
    const [left] = await selectRows<{ count: number }>(
      dataSource,
      `SELECT count(*)::int AS count FROM people WHERE id = ANY($1::uuid[])`,
      [[duplicate, noEnterprise, takesPhone].flatMap((d) => (d.doc.people ?? []).map((p) => p.id))],
    );
    expect(left?.count).toBe(0);
  });

  it('says `reading` while people are loaded straight in, and counts the records of a second reading from zero', async () => {
    const record = (): { phases: string[]; records: () => number; progress: Progress } => {
      const phases: string[] = [];
      let records = 0;
      const progress: Progress = {
        phase: (name) => phases.push(name),
        addRecords: (count) => (records += count),
        finish: () => undefined,
      };
      return { phases, records: () => records, progress };
    };
    const creating = creatingDocument();
    const once = record();
    const json = JSON.stringify(creating.doc);
    expect(await importStream(dataSource, cipher, () => [json], once.progress)).toMatchObject({ loadedStraightIn: 3 });
    expect(once.phases.slice(0, 2)).toEqual(['reading', 'checking']);
    expect(once.records()).toBe(4);

    const stored = creatingDocument(1);
    expect((await importDocument(dataSource, cipher, stored.doc)).ok).toBe(true);
    const { doc } = creatingDocument(2);
    const mixed = JSON.stringify({ ...doc, people: [...(doc.people ?? []), ...(stored.doc.people ?? [])] });
    const twice = record();
    expect(await importStream(dataSource, cipher, () => [mixed], twice.progress)).toMatchObject({ readAgain: true });
    expect(twice.phases.slice(0, 3)).toEqual(['reading', 'reading again', 'checking']);
    expect(twice.records()).toBe(4);
  });

  it('reads again when people follow another section after people loaded straight in', async () => {
    const first = creatingDocument(1);
    const second = creatingDocument(1);
    const organisation = { id: randomUUID(), enterprise_id: first.enterprise, legal_name: 'Acme Pty Ltd' };
    // Two `people` keys: JSON allows them, and each is a section of records.
    const json =
      `{"enterprises":${JSON.stringify([...(first.doc.enterprises ?? []), ...(second.doc.enterprises ?? [])])},` +
      `"people":${JSON.stringify(first.doc.people)},"organisations":${JSON.stringify([organisation])},` +
      `"people":${JSON.stringify(second.doc.people)}}`;
    const outcome = await importStream(dataSource, cipher, () => [json]);
    expect(outcome).toMatchObject({ ok: true, readAgain: true, loadedStraightIn: 0 });
    expect(created(outcome)).toEqual({ total: 2, created: 2, updated: 0 });
  });
});
