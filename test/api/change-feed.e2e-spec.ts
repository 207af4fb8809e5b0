import { createCipheriv, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ChangeCursorCodec, cursorKeyId } from '../../src/changes/change-cursor.js';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { selectRows } from '../../src/database/sql.js';
import { resourceOfType } from '../../src/resources/tenant-resources.js';
import { apiHeaders, importFixture, loginToken, type Tenant } from '../helpers/fixtures.js';
import { withStatements } from '../helpers/statements.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { twoTenants } from '../helpers/two-tenants.js';

type Version = 'v1' | 'v2';

interface Entry {
  type: string;
  id: string;
  action: 'upserted' | 'removed';
  changed_at: string;
  record: Record<string, unknown> | null;
}
interface FeedPage {
  data: Entry[];
  links: { next: string };
  meta: { next_cursor: string; has_more: boolean };
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function personDoc(enterpriseId: string, overrides: Record<string, unknown> = {}) {
  return {
    id: randomUUID(),
    enterprise_id: enterpriseId,
    first_name: 'Jane',
    last_name: 'Citizen',
    phone_numbers: [{ id: randomUUID(), type: 'mobile', number: '0400 000 000', is_primary: true }],
    emails: [{ id: randomUUID(), address: 'jane@example.com', is_primary: true }],
    addresses: [{ id: randomUUID(), type: 'Residential', line1: '1 Main St', suburb: 'Sydney' }],
    financials: [{ id: randomUUID(), type: 'income', amount: '5200.00', category: 'salary and wages' }],
    ...overrides,
  };
}

describe('change feed', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  let outsiderToken: string;
  const person = () => personDoc(tenant.enterpriseId);
  /** The own tenant's first record of each resource, from the shared fixture. */
  let seeded: {
    person: ReturnType<typeof personDoc>;
    quote: { id: string };
    application: { id: string };
    lead: { id: string };
    foreignPerson: { id: string };
  };
  /** The first record of every resource with a change type, by type. */
  let seededOfType: Partial<Record<string, string>>;
  let enterprisesOfFixture: Record<string, unknown>[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    // One record of every resource in each tenant: a resource with a change type joins the seed without a line here.
    const { doc, own, foreign } = twoTenants('one');
    enterprisesOfFixture = doc.enterprises ?? [];
    tenant = {
      enterpriseId: own.enterpriseId,
      otherEnterpriseId: foreign.enterpriseId,
      user: own.user,
      outsider: foreign.user,
    };
    // The fixture's first person has a row of every nested kind, as personDoc's.
    const firstPerson = doc.people?.find((p) => p.id === own.ids.people) as ReturnType<typeof personDoc>;
    seeded = {
      person: firstPerson,
      quote: { id: own.ids.quotes },
      application: { id: own.ids.applications },
      lead: { id: own.ids.leads },
      foreignPerson: { id: foreign.ids.people },
    };
    seededOfType = Object.fromEntries(CHANGE_TYPES.map((type) => [type, own.ids[resourceOfType(type).path]]));
    await importFixture(t, doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    outsiderToken = await loginToken(t.app, tenant.outsider.email, tenant.outsider.password);
  });
  afterAll(async () => {
    await t.close();
  });

  async function feed(version: Version, query: Record<string, string> = {}, enterpriseId = tenant.enterpriseId) {
    const search = new URLSearchParams(query).toString();
    return t.app.inject({
      method: 'GET',
      url: `/api/${version}/changes${search ? `?${search}` : ''}`,
      headers: apiHeaders(version, token, enterpriseId),
    });
  }

  async function page(version: Version, query: Record<string, string> = {}): Promise<FeedPage> {
    const res = await feed(version, query);
    expect(res.statusCode).toBe(200);
    return res.json<FeedPage>();
  }

  /**
   * Follows next_cursor until every transaction committed before the call has been read past;
   * every entry read, in order. A transaction open elsewhere on the server (another suite's)
   * holds the feed's horizon back for a moment: the feed waits for it rather than skip it.
   */
  async function drain(version: Version, cursor?: string, extra: Record<string, string> = {}) {
    const codec = new ChangeCursorCodec(t.config.encryptionKeys);
    const asked = extra.types?.split(',').map((type) => type.trim());
    const types = CHANGE_TYPES.filter((type) => asked === undefined || asked.includes(type));
    // A position taken now: every transaction that writes the log after this takes a later one.
    const [{ barrier }] = await selectRows<{ barrier: string }>(
      t.dataSource,
      `SELECT nextval('change_log_seq')::text AS barrier`,
    ).then((rows) => rows as [{ barrier: string }]);
    const entries: Entry[] = [];
    let next = cursor;
    for (let i = 0; i < 2000; i++) {
      const body = await page(version, { ...(next === undefined ? {} : { cursor: next }), ...extra });
      entries.push(...body.data);
      next = body.meta.next_cursor;
      if (body.meta.has_more) continue;
      if (codec.decode(next, tenant.enterpriseId, types).seq >= BigInt(barrier)) return { entries, cursor: next };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the feed never ended');
  }

  async function cursorNow(version: Version = 'v2', types?: string): Promise<string> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/${version}/changes/cursor${types === undefined ? '' : `?types=${types}`}`,
      headers: apiHeaders(version, token, tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    return res.json<{ data: { cursor: string } }>().data.cursor;
  }

  async function retrieve(version: Version, path: string): Promise<unknown> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/${version}/${path}`,
      headers: apiHeaders(version, token, tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    return res.json<{ data: unknown }>().data;
  }

  /** Where each type's record is retrieved: the path of the descriptor with that change type. */
  const RETRIEVE_PATH: Record<string, string> = Object.fromEntries(
    CHANGE_TYPES.map((type) => [type, resourceOfType(type).path]),
  );

  describe('read from the beginning', () => {
    it('has a seeded record of every change type', () => {
      expect(CHANGE_TYPES.filter((type) => seededOfType[type] === undefined)).toEqual([]);
    });

    it.each(['v1', 'v2'] as const)(
      '%s lists every record of the enterprise, each exactly as its retrieve answers it',
      async (version) => {
        const { entries } = await drain(version);
        const byKey = new Map(entries.map((e) => [`${e.type}:${e.id}`, e]));
        expect(byKey.size).toBe(entries.length);
        for (const [type, id] of Object.entries(seededOfType)) {
          expect(`${type}:${id ?? ''} ${byKey.get(`${type}:${id ?? ''}`)?.action}`).toBe(
            `${type}:${id ?? ''} upserted`,
          );
        }
        expect(byKey.has(`person:${seeded.foreignPerson.id}`)).toBe(false);
        expect(byKey.has(`user:${tenant.outsider.id}`)).toBe(false);
        for (const entry of entries) {
          expect(Object.keys(entry)).toEqual(['type', 'id', 'action', 'changed_at', 'record']);
          expect(entry.changed_at).toMatch(ISO_MS);
          if (entry.action === 'upserted') {
            expect(entry.record).toEqual(await retrieve(version, `${RETRIEVE_PATH[entry.type]}/${entry.id}`));
          }
        }
      },
    );

    it('v1 cases the records and keeps the entry keys', async () => {
      const { entries } = await drain('v1', undefined, { types: 'quote' });
      const quote = entries.find((e) => e.id === seeded.quote.id);
      expect(quote?.record).toMatchObject({ ID: seeded.quote.id, EnterpriseID: tenant.enterpriseId });
      expect(Object.keys((quote?.record as { Application: object }).Application)).toContain('CreatedAt');
    });

    it('an empty page still gives a cursor to poll from', async () => {
      const { cursor } = await drain('v2');
      const body = await page('v2', { cursor });
      expect(body.data).toEqual([]);
      expect(body.meta.has_more).toBe(false);
      expect(typeof body.meta.next_cursor).toBe('string');
      expect(body.links.next).toBe(
        `http://localhost:80/api/v2/changes?cursor=${encodeURIComponent(body.meta.next_cursor)}`,
      );
    });
  });

  describe('every writer produces an entry', () => {
    it.each(['v1', 'v2'] as const)('%s lead POST and PUT', async (version) => {
      const cursor = await cursorNow(version);
      const body =
        version === 'v2' ? { title: 'Boat loan', person_name: 'Bob' } : { Title: 'Boat loan', PersonName: 'Bob' };
      const created = await t.app.inject({
        method: 'POST',
        url: `/api/${version}/leads`,
        headers: apiHeaders(version, token, tenant.enterpriseId),
        payload: body,
      });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ data: Record<string, string> }>().data[version === 'v2' ? 'id' : 'ID'] ?? '';
      const first = await drain(version, cursor);
      expect(first.entries.map((e) => [e.type, e.id, e.action])).toEqual([['lead', id, 'upserted']]);
      const updated = await t.app.inject({
        method: 'PUT',
        url: `/api/${version}/leads/${id}`,
        headers: apiHeaders(version, token, tenant.enterpriseId),
        payload: version === 'v2' ? { ...body, title: 'Yacht loan' } : { ...body, Title: 'Yacht loan' },
      });
      expect(updated.statusCode).toBe(200);
      const { entries } = await drain(version, first.cursor);
      expect(entries).toHaveLength(1);
      expect(entries[0]?.record).toMatchObject(version === 'v2' ? { title: 'Yacht loan' } : { Title: 'Yacht loan' });
    });

    it('an import of each resource', async () => {
      const cursor = await cursorNow();
      const applicationId = randomUUID();
      const ids = {
        person: randomUUID(),
        organisation: randomUUID(),
        application: applicationId,
        quote: randomUUID(),
        lead: randomUUID(),
        user: randomUUID(),
      };
      await importFixture(t, {
        users: [
          {
            id: ids.user,
            name: 'New Broker',
            email: `new-${ids.user}@example.com`,
            password: 'x-password',
            enterprise_ids: [tenant.enterpriseId],
          },
        ],
        people: [{ ...person(), id: ids.person }],
        organisations: [{ id: ids.organisation, enterprise_id: tenant.enterpriseId, legal_name: 'New Co' }],
        applications: [{ id: applicationId, enterprise_id: tenant.enterpriseId }],
        quotes: [{ id: ids.quote, enterprise_id: tenant.enterpriseId, application_id: applicationId }],
        leads: [{ id: ids.lead, enterprise_id: tenant.enterpriseId, title: 'Imported' }],
      });
      const { entries } = await drain('v2', cursor);
      expect(entries.map((e) => `${e.type}:${e.id}:${e.action}`).sort()).toEqual(
        Object.entries(ids)
          .map(([type, id]) => `${type}:${id}:upserted`)
          .sort(),
      );
    });

    it('an import that changes only a nested row, and one that changes nothing', async () => {
      const cursor = await cursorNow();
      const changed = {
        ...seeded.person,
        phone_numbers: [{ ...seeded.person.phone_numbers[0], number: '0499 999 999' }],
        emails: [],
      };
      await importFixture(t, { people: [changed] });
      const drained = await drain('v2', cursor);
      expect(drained.entries.map((e) => [e.type, e.id])).toEqual([['person', seeded.person.id]]);
      const record = drained.entries[0]?.record as {
        phone_numbers: { data: { number: string }[] };
        emails: { data: [] };
      };
      expect(record.phone_numbers.data[0]?.number).toBe('0499 999 999');
      expect(record.emails.data).toEqual([]);
      seeded.person = changed as typeof seeded.person;
      await importFixture(t, { people: [changed] });
      expect((await drain('v2', drained.cursor)).entries).toEqual([]);
    });

    it('a quote change is its application’s and its sibling quotes’ change too', async () => {
      const cursor = await cursorNow();
      await t.dataSource.query(`UPDATE quotes SET financier = 'Other Bank' WHERE id = $1`, [seeded.quote.id]);
      const { entries } = await drain('v2', cursor);
      expect(entries.map((e) => `${e.type}:${e.id}`).sort()).toEqual(
        [`application:${seeded.application.id}`, `quote:${seeded.quote.id}`].sort(),
      );
      const application = entries.find((e) => e.type === 'application')?.record;
      expect(application).toMatchObject({ financier: 'Other Bank' });
    });

    it('a membership removed by an import removes the user from the enterprise', async () => {
      const userId = randomUUID();
      const user = {
        id: userId,
        name: 'Leaving Broker',
        email: `leaving-${userId}@example.com`,
        password: 'x-password',
        enterprise_ids: [tenant.enterpriseId],
      };
      await importFixture(t, { users: [user] });
      const cursor = await cursorNow();
      // The file mentions the enterprise the user leaves (its entry, unchanged), so the list replaces it.
      await importFixture(t, {
        enterprises: enterprisesOfFixture.filter((e) => e.id === tenant.enterpriseId),
        users: [{ ...user, enterprise_ids: [tenant.otherEnterpriseId] }],
      });
      const { entries } = await drain('v2', cursor);
      expect(entries).toEqual([expect.objectContaining({ type: 'user', id: userId, action: 'removed', record: null })]);
    });

    it('a delete by plain SQL, and a record moved to another enterprise', async () => {
      const doomed = person();
      const moved = person();
      await importFixture(t, { people: [doomed, moved] });
      const cursor = await cursorNow();
      await t.dataSource.query(`DELETE FROM people WHERE id = $1`, [doomed.id]);
      await t.dataSource.query(`UPDATE people SET enterprise_id = $2 WHERE id = $1`, [
        moved.id,
        tenant.otherEnterpriseId,
      ]);
      const { entries } = await drain('v2', cursor);
      expect(entries).toEqual([
        expect.objectContaining({ type: 'person', id: doomed.id, action: 'removed', record: null }),
        expect.objectContaining({ type: 'person', id: moved.id, action: 'removed', record: null }),
      ]);
    });

    it('an enterprise deleted by SQL takes its change log with it', async () => {
      const gone = randomUUID();
      await importFixture(t, {
        enterprises: [{ id: gone, name: 'Gone Finance' }],
        people: [personDoc(gone)],
        leads: [{ id: randomUUID(), enterprise_id: gone, title: 'Gone' }],
      });
      const count = async () =>
        (
          await selectRows<{ n: number }>(
            t.dataSource,
            `SELECT count(*)::int AS n FROM change_log WHERE enterprise_id = $1`,
            [gone],
          )
        )[0]?.n;
      expect(await count()).toBe(2);
      await t.dataSource.query(`DELETE FROM enterprises WHERE id = $1`, [gone]);
      expect(await count()).toBe(0);
    });

    it('coalesces: a record changed many times appears once, with its latest state, at its latest change', async () => {
      const cursor = await cursorNow();
      const other = person();
      await importFixture(t, { people: [other] });
      for (const title of ['One', 'Two', 'Three']) {
        await t.dataSource.query(`UPDATE leads SET title = $2 WHERE id = $1`, [seeded.lead.id, title]);
      }
      const { entries } = await drain('v2', cursor);
      expect(entries.map((e) => e.id)).toEqual([other.id, seeded.lead.id]);
      expect(entries[1]?.record).toMatchObject({ title: 'Three' });
    });
  });

  describe('parameters', () => {
    it.each([
      [{ limit: '0' }, 'limit'],
      [{ limit: '501' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ limit: '' }, 'limit'],
      [{ types: 'person,planet' }, 'types'],
      [{ types: '' }, 'types'],
    ])('%j is a 400 with the validation envelope', async (query, field) => {
      const res = await feed('v2', query);
      expect(res.statusCode).toBe(400);
      const body = res.json<{ message: string; errors: Record<string, string[]> }>();
      expect(body.message).toBe('The given data was invalid.');
      expect(Object.keys(body.errors)).toEqual([field]);
    });

    it.each(['POST', 'PUT', 'DELETE'] as const)('%s on the feed is 405 with Allow', async (method) => {
      const res = await t.app.inject({
        method,
        url: '/api/v2/changes',
        headers: apiHeaders('v2', token, tenant.enterpriseId),
      });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('GET');
      expect(res.json<{ message: string }>().message).toBe(
        `The ${method} method is not supported for route api/v2/changes. Supported methods: GET.`,
      );
    });

    it('limit 1 and 500 are accepted, and a page holds at most limit entries', async () => {
      expect((await page('v2', { limit: '1' })).data).toHaveLength(1);
      expect((await page('v2', { limit: '500' })).meta.has_more).toBe(false);
    });

    it('types keeps only those types, and the next link keeps types and limit', async () => {
      const body = await page('v2', { types: 'lead,user', limit: '2' });
      expect(body.data.length).toBeLessThanOrEqual(2);
      expect(body.data.every((e) => e.type === 'lead' || e.type === 'user')).toBe(true);
      const next = new URL(body.links.next);
      expect(next.searchParams.get('types')).toBe('lead,user');
      expect(next.searchParams.get('limit')).toBe('2');
      expect(next.searchParams.get('cursor')).toBe(body.meta.next_cursor);
    });
  });

  describe('cursors', () => {
    it.each([
      ['made up', 'not-a-cursor'],
      ['of the wrong length', 'AAAA'],
    ])('a %s cursor is 400 The cursor is invalid.', async (_, cursor) => {
      const res = await feed('v2', { cursor });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: 'The cursor is invalid.', errors: { cursor: ['The cursor is invalid.'] } });
    });

    it('an empty cursor reads from the beginning, like none', async () => {
      expect((await page('v2', { cursor: '' })).data).toEqual((await page('v2')).data);
    });

    it('an edited cursor is refused', async () => {
      const cursor = await cursorNow();
      const bytes = Buffer.from(cursor, 'base64url');
      bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
      const res = await feed('v2', { cursor: bytes.toString('base64url') });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ message: string }>().message).toBe('The cursor is invalid.');
    });

    it('a cursor of another enterprise is refused, and never shows its changes', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v2/changes/cursor',
        headers: apiHeaders('v2', outsiderToken, tenant.otherEnterpriseId),
      });
      const foreign = res.json<{ data: { cursor: string } }>().data.cursor;
      const refused = await feed('v2', { cursor: foreign });
      expect(refused.statusCode).toBe(400);
      expect(refused.json<{ message: string }>().message).toBe('The cursor is invalid.');
      expect(refused.body).not.toContain(seeded.foreignPerson.id);
    });

    it('a cursor belongs to its types: taken for leads and read for people, 400; with its own types, 200', async () => {
      const forLeads = await cursorNow('v2', 'lead');
      const refused = await feed('v2', { cursor: forLeads, types: 'person' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        message: 'The cursor is invalid.',
        errors: { cursor: ['The cursor is invalid.'] },
      });
      expect((await feed('v2', { cursor: forLeads })).statusCode).toBe(400);
      expect((await feed('v2', { cursor: forLeads, types: 'lead' })).statusCode).toBe(200);
      // The order and spacing of the types do not matter, only which they are.
      const two = await cursorNow('v2', 'lead,person');
      expect((await feed('v2', { cursor: two, types: 'person, lead' })).statusCode).toBe(200);
      const next = (await page('v2', { cursor: two, types: 'lead,person' })).meta.next_cursor;
      expect((await feed('v2', { cursor: next, types: 'lead' })).statusCode).toBe(400);
    });

    it('GET /changes/cursor refuses types that are not types', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v2/changes/cursor?types=lead,planet',
        headers: apiHeaders('v2', token, tenant.enterpriseId),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ errors: Record<string, string[]> }>().errors).toHaveProperty('types');
    });

    it('a cursor of a key since retired is 410 with what to do; one of a key never used is 400', async () => {
      // The service records the ids of its keys when it starts; a key retired later keeps its id there.
      const ids = await selectRows<{ key_id: string }>(t.dataSource, `SELECT key_id FROM cursor_keys`);
      expect(ids.map((row) => row.key_id)).toEqual(
        expect.arrayContaining(t.config.encryptionKeys.map((key) => cursorKeyId(key))),
      );
      const retired = Buffer.alloc(32, 99);
      const retiredCodec = new ChangeCursorCodec([retired]);
      const position = { xid: 1n, seq: 1n };
      const neverUsed = new ChangeCursorCodec([Buffer.alloc(32, 98)]).encode(position, tenant.enterpriseId, [
        ...CHANGE_TYPES,
      ]);
      const forged = await feed('v2', { cursor: neverUsed });
      expect(forged.statusCode).toBe(400);
      expect(forged.json<{ message: string }>().message).toBe('The cursor is invalid.');

      await t.dataSource.query(`INSERT INTO cursor_keys (key_id) VALUES ($1)`, [cursorKeyId(retired)]);
      const cursor = retiredCodec.encode(position, tenant.enterpriseId, [...CHANGE_TYPES]);
      for (const version of ['v1', 'v2'] as const) {
        const gone = await feed(version, { cursor });
        expect(gone.statusCode).toBe(410);
        expect(gone.json()).toEqual({
          message:
            'The cursor was written under an encryption key that has since been retired. Start again from ' +
            'GET /changes/cursor and re-read the lists, then follow the feed from that cursor.',
        });
      }
    });

    it('a cursor stored before cursors carried their types still reads on, with any types', async () => {
      // The first cursor format: AES-256-GCM over (format 1, xid, seq), the enterprise as associated data.
      const key = Buffer.from(
        hkdfSync(
          'sha256',
          t.config.encryptionKeys[0] as Buffer,
          Buffer.alloc(0),
          'finance-intake change-feed cursor',
          32,
        ),
      );
      const plain = Buffer.alloc(17);
      plain.writeUInt8(1, 0);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(tenant.enterpriseId, 'utf8'));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      const legacy = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
      const read = await feed('v2', { cursor: legacy, types: 'person' });
      expect(read.statusCode).toBe(200);
      expect(read.json<FeedPage>().data.length).toBeGreaterThan(0);
    });

    it('the feed of an enterprise the caller is not a member of is 403', async () => {
      const res = await feed('v2', {}, tenant.otherEnterpriseId);
      expect(res.statusCode).toBe(403);
      const v1 = await t.app.inject({ method: 'GET', url: '/api/v1/changes', headers: apiHeaders('v1', token) });
      expect(v1.statusCode).toBe(403);
      expect(v1.json()).toEqual({ message: 'The EnterpriseID header is required.' });
      const anonymous = await t.app.inject({ method: 'GET', url: '/api/v2/changes' });
      expect(anonymous.statusCode).toBe(401);
    });

    it('a cursor works in both versions', async () => {
      const cursor = await cursorNow('v1');
      expect((await feed('v2', { cursor })).statusCode).toBe(200);
    });
  });

  describe('paging and concurrency', () => {
    it('pages through 1,000 changes with no loss and no duplicate', async () => {
      const cursor = await cursorNow();
      const people = Array.from({ length: 1000 }, () => ({
        id: randomUUID(),
        enterprise_id: tenant.enterpriseId,
        last_name: 'Bulk',
      }));
      await importFixture(t, { people });
      const { entries } = await drain('v2', cursor, { limit: '37' });
      const ids = entries.map((e) => e.id);
      expect(ids).toHaveLength(1000);
      expect(new Set(ids)).toEqual(new Set(people.map((p) => p.id)));
    });

    it('a reader running beside writers ends with every record’s final state', async () => {
      const leads = Array.from({ length: 8 }, () => randomUUID());
      await importFixture(t, {
        leads: leads.map((id) => ({ id, enterprise_id: tenant.enterpriseId, title: 'v0', person_name: 'P' })),
      });
      let cursor = await cursorNow('v2', 'lead');
      const seen = new Map<string, unknown>();
      let writing = true;
      const writers = (async () => {
        for (let round = 1; round <= 10; round++) {
          await Promise.all(
            leads.map((id) =>
              t.app.inject({
                method: 'PUT',
                url: `/api/v2/leads/${id}`,
                headers: apiHeaders('v2', token, tenant.enterpriseId),
                payload: { title: `v${round}`, person_name: 'P' },
              }),
            ),
          );
        }
        writing = false;
      })();
      while (writing) {
        const { entries, cursor: next } = await drain('v2', cursor, { types: 'lead', limit: '3' });
        for (const e of entries) seen.set(e.id, e.record);
        cursor = next;
      }
      await writers;
      const { entries } = await drain('v2', cursor, { types: 'lead' });
      for (const e of entries) seen.set(e.id, e.record);
      for (const id of leads) expect(seen.get(id)).toMatchObject({ title: 'v10' });
    });
  });

  it('a page costs the same number of queries at limit 1 and at limit 500', async () => {
    const cursor = await cursorNow('v2', 'person');
    await importFixture(t, { people: Array.from({ length: 600 }, () => person()) });
    async function queriesFor(limit: string) {
      const { result: body, sql } = await withStatements(t.dataSource, () =>
        page('v2', { cursor, limit, types: 'person' }),
      );
      return { entries: body.data.length, queries: sql.length };
    }
    // Limit 1 first: the larger page then has records to read from their rows (all but the one
    // kept by the first read), so both pay the batches; read the other way round, the second
    // page's one record would be kept, and its batches rightly skipped.
    const one = await queriesFor('1');
    const many = await queriesFor('500');
    expect(one.entries).toBe(1);
    expect(many.entries).toBe(500);
    expect(many.queries).toBe(one.queries);
  });
});
