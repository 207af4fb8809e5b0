import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { apiHeaders, importFixture, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

interface FeedPage {
  data: { type: string; id: string; action: string; record: Record<string, unknown> | null }[];
  meta: { next_cursor: string; has_more: boolean };
}

/**
 * Writers on connections of their own, outside the service, against a real PostgreSQL server
 * (the embedded one has a single backend, so no second transaction can be open beside a read).
 */
describe('change feed beside open transactions', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token = '';

  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client(t.database.url);
    await client.connect();
    return client;
  }

  async function page(cursor: string): Promise<FeedPage> {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v2/changes?cursor=${encodeURIComponent(cursor)}`,
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    return res.json<FeedPage>();
  }

  async function cursorNow(): Promise<string> {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/changes/cursor',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    return res.json<{ data: { cursor: string } }>().data.cursor;
  }

  const insertLead = (client: pg.Client, id: string, title: string) =>
    client.query(`INSERT INTO leads (id, enterprise_id, title) VALUES ($1, $2, $3)`, [id, tenant.enterpriseId, title]);

  it('delivers a transaction held open over a feed read once it commits, though a later one committed first', async () => {
    const slow = await connect();
    const fast = await connect();
    try {
      // The fast writer changes another record of the same enterprise: it does not wait for slow.
      const fastPerson = randomUUID();
      await fast.query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Fast')`, [
        fastPerson,
        tenant.enterpriseId,
      ]);
      let cursor = await cursorNow();
      const slowLead = randomUUID();
      await slow.query('BEGIN');
      await insertLead(slow, slowLead, 'slow');
      await fast.query(`UPDATE people SET last_name = 'Faster' WHERE id = $1`, [fastPerson]);

      // The fast update committed, but the slow transaction wrote before it and may still commit:
      // the cursor must not move past it.
      let body = await page(cursor);
      expect(body.data.map((e) => e.id)).not.toContain(slowLead);
      cursor = body.meta.next_cursor;
      body = await page(cursor);
      cursor = body.meta.next_cursor;

      await slow.query('COMMIT');
      const seen = new Set<string>();
      // Other transactions on the server (other suites) may hold the horizon back for a moment.
      for (let i = 0; i < 100 && !(seen.has(slowLead) && seen.has(fastPerson)); i++) {
        body = await page(cursor);
        for (const entry of body.data) seen.add(entry.id);
        cursor = body.meta.next_cursor;
        if (!body.meta.has_more) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seen).toContain(slowLead);
      expect(seen).toContain(fastPerson);
    } finally {
      await slow.end();
      await fast.end();
    }
  });

  it('a rolled-back transaction leaves no entry and does not hold the feed back afterwards', async () => {
    const client = await connect();
    try {
      const cursor = await cursorNow();
      const id = randomUUID();
      await client.query('BEGIN');
      await insertLead(client, id, 'never');
      await client.query('ROLLBACK');
      const kept = randomUUID();
      await insertLead(client, kept, 'kept');
      const body = await page(cursor);
      expect(body.data.map((e) => e.id)).toEqual([kept]);
    } finally {
      await client.end();
    }
  });

  it('writers on four connections and a polling reader: the reader ends with every final state', async () => {
    const leads = Array.from({ length: 12 }, () => randomUUID());
    const setup = await connect();
    for (const id of leads) await insertLead(setup, id, 'round 0');
    await setup.end();
    let cursor = await cursorNow();
    const finalTitle = new Map<string, unknown>();
    const writers = Array.from({ length: 4 }, async (_, w) => {
      const client = await connect();
      try {
        for (let round = 1; round <= 15; round++) {
          await client.query('BEGIN');
          for (const id of leads.filter((_, i) => i % 4 === w)) {
            await client.query(`UPDATE leads SET title = $2 WHERE id = $1`, [id, `round ${round}`]);
          }
          // Some transactions stay open a while, so commits land out of transaction-id order.
          if (round % 3 === w % 3) await new Promise((resolve) => setTimeout(resolve, 15));
          await client.query('COMMIT');
        }
      } finally {
        await client.end();
      }
    });
    let done = false;
    const all = Promise.all(writers).then(() => {
      done = true;
    });
    while (!done) {
      const body = await page(cursor);
      for (const entry of body.data) finalTitle.set(entry.id, entry.record?.title);
      cursor = body.meta.next_cursor;
    }
    await all;
    for (let i = 0; i < 200 && leads.some((id) => finalTitle.get(id) !== 'round 15'); i++) {
      const body = await page(cursor);
      for (const entry of body.data) finalTitle.set(entry.id, entry.record?.title);
      cursor = body.meta.next_cursor;
      if (!body.meta.has_more) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const id of leads) expect(finalTitle.get(id)).toBe('round 15');
  });

  /** Polls the feed every 50 ms until `id` appears; how long that took after `since`. */
  async function waitForEntry(cursor: string, id: string, since: number): Promise<number> {
    let next = cursor;
    for (let i = 0; i < 200; i++) {
      const body = await page(next);
      if (body.data.some((entry) => entry.id === id)) return performance.now() - since;
      next = body.meta.next_cursor;
      if (!body.meta.has_more) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the entry never appeared');
  }

  describe('only writers of this enterprise hold its feed back', () => {
    let other: Tenant;

    beforeAll(async () => {
      const fixture = tenantDocument();
      other = fixture.tenant;
      await importFixture(t, fixture.doc);
    });

    it('a transaction open on another enterprise’s rows: a lead written here is listed at once, and one it writes here later is not skipped', async () => {
      const open = await connect();
      const writer = await connect();
      try {
        const cursor = await cursorNow();
        await open.query('BEGIN');
        await open.query(`INSERT INTO leads (id, enterprise_id, title) VALUES ($1, $2, 'other tenant')`, [
          randomUUID(),
          other.enterpriseId,
        ]);
        const mine = randomUUID();
        const committed = performance.now();
        await insertLead(writer, mine, 'here');
        expect(await waitForEntry(cursor, mine, committed)).toBeLessThan(1_000);

        // The open transaction now writes this enterprise too: its entry must not be skipped by a
        // cursor handed out while it wrote only the other one.
        let body = await page(cursor);
        let next = body.meta.next_cursor;
        const late = randomUUID();
        await insertLead(open, late, 'late');
        body = await page(next);
        expect(body.data.map((entry) => entry.id)).not.toContain(late);
        next = body.meta.next_cursor;
        await open.query('COMMIT');
        expect(await waitForEntry(next, late, performance.now())).toBeLessThan(1_000);
      } finally {
        await open.end();
        await writer.end();
      }
    });

    it('a transaction open in another database, one that wrote other tables, and a read-only one hold nothing back', async () => {
      const admin = await connect();
      const elsewhere = `fi_feed_elsewhere_${randomUUID().slice(0, 8)}`;
      await admin.query(`CREATE DATABASE ${elsewhere}`);
      const url = new URL(t.database.url);
      url.pathname = `/${elsewhere}`;
      const otherDatabase = new pg.Client(url.toString());
      const otherTables = await connect();
      const readOnly = await connect();
      const writer = await connect();
      await otherDatabase.connect();
      try {
        await otherDatabase.query('CREATE TABLE t (n int)');
        await otherDatabase.query('BEGIN');
        await otherDatabase.query('INSERT INTO t VALUES (1)');
        await otherTables.query('BEGIN');
        await otherTables.query(`UPDATE signing_documents SET status = status WHERE false`);
        await otherTables.query(`SELECT pg_current_xact_id()`);
        await readOnly.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        await readOnly.query(`SELECT count(*) FROM leads`);
        const cursor = await cursorNow();
        const mine = randomUUID();
        const committed = performance.now();
        await insertLead(writer, mine, 'not held back');
        expect(await waitForEntry(cursor, mine, committed)).toBeLessThan(1_000);
      } finally {
        await otherDatabase.end();
        await otherTables.end();
        await readOnly.end();
        await writer.end();
        await admin.query(`DROP DATABASE ${elsewhere} WITH (FORCE)`);
        await admin.end();
      }
    });
  });
});
