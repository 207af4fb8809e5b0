import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PresentedChanges } from '../../src/changes/presented-changes.js';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { resourceOfType, TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { withStatements } from '../helpers/statements.js';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { createTestApp } from '../helpers/test-app.js';
import { createLead, enterpriseWithEndpoint } from '../helpers/webhook-endpoint.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { twoTenants } from '../helpers/two-tenants.js';

type Version = 'v1' | 'v2';

interface Entry {
  type: string;
  id: string;
  action: 'upserted' | 'removed';
  record: Record<string, unknown> | null;
}
interface FeedPage {
  data: Entry[];
  meta: { next_cursor: string; has_more: boolean };
}

/**
 * The statements that read a record's rows (the feed's own are the horizon and the change log):
 * every resource's table, from the descriptors, users and the nested rows of people and organisations.
 */
const RECORD_TABLES = [
  ...TENANT_RESOURCES.flatMap((resource) => (resource.rows.table === undefined ? [] : [resource.rows.table])),
  'users',
  'phone_numbers',
  'emails',
  'addresses',
  'financials',
];
const RECORD_ROWS = new RegExp(`\\bFROM\\s+(${RECORD_TABLES.join('|')})\\b`, 'i');

/** A tenant with a record of every change type (a quote embeds its application) and a few people. */
async function seededApp(env: Record<string, string> = {}) {
  const t = await createTestApp(env);
  const { doc, own } = twoTenants('one');
  await importFixture(t, doc);
  const token = await loginToken(t.app, own.user.email, own.user.password);
  const read = async (version: Version, path: string): Promise<{ status: number; body: unknown }> => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/${version}/${path}`,
      headers: apiHeaders(version, token, own.enterpriseId),
    });
    return { status: res.statusCode, body: res.json<unknown>() };
  };
  /** One feed page (from the beginning unless `path` says), and the statements reading it took. */
  const feedPage = async (version: Version = 'v2', path = 'changes?limit=500') => {
    const { result, sql } = await withStatements(t.dataSource, () => read(version, path));
    expect(result.status).toBe(200);
    return { page: result.body as FeedPage, sql };
  };
  /** Each upserted entry's record must be what its retrieve answers now. */
  const expectEachRecordCurrent = async (version: Version, page: FeedPage) => {
    const upserted = page.data.filter((entry) => entry.action === 'upserted');
    expect(upserted.length).toBeGreaterThan(0);
    for (const entry of upserted) {
      const retrieved = await read(
        version,
        `${resourceOfType(entry.type as (typeof CHANGE_TYPES)[number]).path}/${entry.id}`,
      );
      expect(retrieved.status).toBe(200);
      expect({ type: entry.type, record: entry.record }).toEqual({
        type: entry.type,
        record: (retrieved.body as { data: unknown }).data,
      });
    }
  };
  return { t, own, read, feedPage, expectEachRecordCurrent };
}

describe('change feed records presented once per change (RECORD_CACHE_MB)', () => {
  let seeded: Awaited<ReturnType<typeof seededApp>>;

  beforeAll(async () => {
    seeded = await seededApp();
  });
  afterAll(async () => {
    await seeded.t.close();
  });

  it('a page read again reads no record rows, and answers the same records, each its retrieve', async () => {
    const first = await seeded.feedPage();
    expect(first.sql.filter((sql) => RECORD_ROWS.test(sql)).length).toBeGreaterThan(0);
    const again = await seeded.feedPage();
    expect(again.sql.filter((sql) => RECORD_ROWS.test(sql))).toEqual([]);
    expect(again.page.data).toEqual(first.page.data);
    expect(new Set(again.page.data.map((entry) => entry.type))).toEqual(new Set(CHANGE_TYPES));
    await seeded.expectEachRecordCurrent('v2', again.page);
    // v1 cases copies of the kept records: its answer, and v2's after it, are still each record as retrieved.
    await seeded.expectEachRecordCurrent('v1', (await seeded.feedPage('v1')).page);
    expect((await seeded.feedPage()).page.data).toEqual(first.page.data);
    expect(seeded.t.app.get(PresentedChanges).size).toBeGreaterThan(0);
  });

  it('a change to anything a record shows is read afresh: its own row, a nested row, an embedded record', async () => {
    const { t, own } = seeded;
    await seeded.feedPage();
    await t.dataSource.query(`UPDATE people SET last_name = 'Changed' WHERE id = $1`, [own.ids.people]);
    await t.dataSource.query(`UPDATE phone_numbers SET number = '0411 111 111' WHERE person_id = $1`, [own.ids.people]);
    await t.dataSource.query(`UPDATE emails SET address = 'changed@example.com' WHERE organisation_id = $1`, [
      own.ids.organisations,
    ]);
    // A quote embeds its application: the application's change is the quote's.
    await t.dataSource.query(`UPDATE applications SET contract_number = 'C-CHANGED' WHERE id = $1`, [
      own.ids.applications,
    ]);
    await t.dataSource.query(`UPDATE users SET name = 'Changed Name' WHERE id = $1`, [own.user.id]);
    const { page, sql } = await seeded.feedPage();
    expect(sql.filter((statement) => RECORD_ROWS.test(statement)).length).toBeGreaterThan(0);
    const recordOf = (type: string, id: string) =>
      page.data.find((entry) => entry.type === type && entry.id === id)?.record;
    expect(recordOf('person', own.ids.people)).toMatchObject({
      last_name: 'Changed',
      phone_numbers: { data: [expect.objectContaining({ number: '0411 111 111' })] },
    });
    expect(recordOf('organisation', own.ids.organisations)).toMatchObject({
      emails: { data: [expect.objectContaining({ address: 'changed@example.com' })] },
    });
    expect(recordOf('quote', own.ids.quotes)).toMatchObject({ application: { contract_number: 'C-CHANGED' } });
    expect(recordOf('user', own.user.id)).toMatchObject({ name: 'Changed Name' });
    await seeded.expectEachRecordCurrent('v2', page);
  });
});

describe('retrieves presented once per version (RECORD_CACHE_MB)', () => {
  let seeded: Awaited<ReturnType<typeof seededApp>>;

  beforeAll(async () => {
    seeded = await seededApp();
  });
  afterAll(async () => {
    await seeded.t.close();
  });

  /** A retrieve of every change type's record, and the statements reading each took. */
  const retrieveAll = async () => {
    const { own } = seeded;
    const ids: Record<string, string> = { ...own.ids, users: own.user.id };
    const answers = new Map<string, { body: unknown; rowReads: number }>();
    for (const type of CHANGE_TYPES) {
      const path = resourceOfType(type).path;
      const { result, sql } = await withStatements(seeded.t.dataSource, () =>
        seeded.read('v2', `${path}/${ids[path]}`),
      );
      expect({ type, status: result.status }).toEqual({ type, status: 200 });
      answers.set(type, {
        body: (result.body as { data: unknown }).data,
        rowReads: sql.filter((q) => RECORD_ROWS.test(q)).length,
      });
    }
    return answers;
  };

  it('a record read again reads its row and version only, and answers the same record', async () => {
    const first = await retrieveAll();
    const again = await retrieveAll();
    for (const type of CHANGE_TYPES) {
      expect({ type, body: again.get(type)?.body }).toEqual({ type, body: first.get(type)?.body });
      expect({ type, rowReads: again.get(type)?.rowReads }).toEqual({ type, rowReads: 1 });
    }
    // A person's record is written by a second statement after its row and version.
    expect(first.get('person')?.rowReads).toBe(2);
  });

  it('a change to anything a record shows is read afresh: its own row, a nested row, an embedded record', async () => {
    const { t, own } = seeded;
    await retrieveAll();
    await t.dataSource.query(`UPDATE phone_numbers SET number = '0422 222 222' WHERE person_id = $1`, [own.ids.people]);
    await t.dataSource.query(`UPDATE emails SET address = 'again@example.com' WHERE organisation_id = $1`, [
      own.ids.organisations,
    ]);
    await t.dataSource.query(`UPDATE applications SET contract_number = 'C-AGAIN' WHERE id = $1`, [
      own.ids.applications,
    ]);
    await t.dataSource.query(`UPDATE users SET name = 'Another Name' WHERE id = $1`, [own.user.id]);
    await t.dataSource.query(`UPDATE leads SET title = 'Retitled' WHERE id = $1`, [own.ids.leads]);
    const after = await retrieveAll();
    expect(after.get('person')?.body).toMatchObject({
      phone_numbers: { data: [expect.objectContaining({ number: '0422 222 222' })] },
    });
    expect(after.get('organisation')?.body).toMatchObject({
      emails: { data: [expect.objectContaining({ address: 'again@example.com' })] },
    });
    expect(after.get('quote')?.body).toMatchObject({ application: { contract_number: 'C-AGAIN' } });
    expect(after.get('user')?.body).toMatchObject({ name: 'Another Name' });
    expect(after.get('lead')?.body).toMatchObject({ title: 'Retitled' });
  });
});

describe('RECORD_CACHE_MB=0', () => {
  let seeded: Awaited<ReturnType<typeof seededApp>>;

  beforeAll(async () => {
    seeded = await seededApp({ RECORD_CACHE_MB: '0' });
  });
  afterAll(async () => {
    await seeded.t.close();
  });

  it('keeps nothing: every read of a page reads its records from their rows, and answers the same records', async () => {
    const first = await seeded.feedPage();
    const again = await seeded.feedPage();
    expect(again.sql.filter((sql) => RECORD_ROWS.test(sql)).length).toBe(
      first.sql.filter((sql) => RECORD_ROWS.test(sql)).length,
    );
    expect(again.sql.filter((sql) => RECORD_ROWS.test(sql)).length).toBeGreaterThan(0);
    expect(again.page.data).toEqual(first.page.data);
    expect(seeded.t.app.get(PresentedChanges).size).toBe(0);
  });
});

describe('RECORD_CACHE_MB=1, fewer records than two pages', () => {
  let seeded: Awaited<ReturnType<typeof seededApp>>;

  beforeAll(async () => {
    seeded = await seededApp({ RECORD_CACHE_MB: '1' });
    const enterpriseId = seeded.own.enterpriseId;
    await importFixture(seeded.t, {
      people: Array.from({ length: 900 }, (_, n) => ({
        id: randomUUID(),
        enterprise_id: enterpriseId,
        first_name: `Many${n}`,
        last_name: 'Kept',
        phone_numbers: [{ id: randomUUID(), type: 'mobile', number: `0400 000 ${String(n).padStart(3, '0')}` }],
        emails: [{ id: randomUUID(), address: `many${n}@example.com` }],
        addresses: [{ id: randomUUID(), type: 'home', line1: `${n} Main St`, suburb: 'Sydney' }],
      })),
    });
  });
  afterAll(async () => {
    await seeded.t.close();
  });

  it('lets the least recently read go, and answers every page as it did when nothing was kept', async () => {
    const pages = ['changes?types=person&limit=500'];
    const first = await seeded.feedPage('v2', pages[0]);
    pages.push(`changes?types=person&limit=500&cursor=${encodeURIComponent(first.page.meta.next_cursor)}`);
    const firstReads = [first.page.data, (await seeded.feedPage('v2', pages[1])).page.data];
    const kept = seeded.t.app.get(PresentedChanges).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(firstReads.flat().length);
    for (let round = 0; round < 2; round++) {
      for (const [n, path] of pages.entries()) {
        expect((await seeded.feedPage('v2', path)).page.data).toEqual(firstReads[n]);
      }
    }
    expect(seeded.t.app.get(PresentedChanges).size).toBeLessThan(firstReads.flat().length);
  });
});

describe('webhook deliveries share the records the feed presented', () => {
  it.each([
    ['8', 'the kept record: the round read no rows of it'],
    ['0', 'the row as it is now'],
  ])('RECORD_CACHE_MB=%s: a delivery after a feed read carries %s', async (megabytes) => {
    const t = await createTestApp({
      RECORD_CACHE_MB: megabytes,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
    });
    const receiver = new WebhookReceiver();
    const worker = t.app.get(WebhookDeliveryWorker);
    try {
      const { headers } = await enterpriseWithEndpoint(t, { url: `${await receiver.start()}/hooks` });
      const id = await createLead(t, headers, 'As presented');
      const feed = await t.app.inject({ method: 'GET', url: '/api/v2/changes?types=lead', headers });
      expect(feed.json<FeedPage>().data.map((entry) => entry.record?.title)).toEqual(['As presented']);
      // A write that bypasses the triggers (the operators' guide says to restart after one):
      // the entry stays where it was, so only a reader that reads the row again can see it.
      await t.dataSource.transaction(async (manager) => {
        await manager.query(`SET LOCAL session_replication_role = replica`);
        await manager.query(`UPDATE leads SET title = 'Behind the triggers' WHERE id = $1`, [id]);
      });
      worker.start();
      await receiver.waitFor(() => receiver.accepted().length > 0);
      const event = JSON.parse(receiver.accepted()[0]?.body ?? '{}') as { data: Entry };
      expect(event.data.id).toBe(id);
      expect(event.data.record?.title).toBe(megabytes === '0' ? 'Behind the triggers' : 'As presented');
    } finally {
      await worker.stop();
      await receiver.stop();
      await t.close();
    }
  });
});
