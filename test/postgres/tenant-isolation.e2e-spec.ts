import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import pg from 'pg';
import { EnterpriseAccess } from '../../src/common/tenancy/enterprise-access.js';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** An app whose enterprises have 3 of its 6 connections each, with the given lock bound. */
const isolationApp = (lockTimeoutMs: number): Promise<TestApp> =>
  createTestApp({
    DATABASE_POOL_MAX: '6',
    DATABASE_POOL_MAX_PER_ENTERPRISE: '3',
    DATABASE_LOCK_TIMEOUT_MS: String(lockTimeoutMs),
  });

/** A transaction that has updated the record (and so holds its row lock) until `release`. */
async function holdRecord(t: TestApp, table: string, id: string): Promise<{ release: () => Promise<void> }> {
  const client = new pg.Client(t.database.url);
  await client.connect();
  await client.query('BEGIN');
  await client.query(`UPDATE ${table} SET updated_at = now() WHERE id = $1`, [id]);
  return {
    async release() {
      await client.query('ROLLBACK');
      await client.end();
    },
  };
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

/**
 * One tenant's slow writer never fails another tenant's requests, nor its own requests that
 * touch other records: writers of one enterprise wait for each other only on the same record,
 * a lock is waited for a bounded time (then 503, nothing written), and one enterprise's waiting
 * requests hold at most its share of the pool. Real PostgreSQL: a transaction held open on a
 * connection of its own, as a slow client or an operator's `BEGIN; UPDATE ...` would.
 */
describe('tenants never wait for each other', () => {
  const LOCK_TIMEOUT_MS = 1_000;
  let t: TestApp;
  let one: Tenant;
  let two: Tenant;
  let tokenOne = '';
  let tokenTwo = '';
  const leadA = randomUUID();
  const leadB = randomUUID();
  const leadOfTwo = randomUUID();

  beforeAll(async () => {
    t = await isolationApp(LOCK_TIMEOUT_MS);
    const first = tenantDocument();
    const second = tenantDocument();
    one = first.tenant;
    two = second.tenant;
    await importFixture(t, first.doc);
    await importFixture(t, second.doc);
    await importFixture(t, {
      leads: [
        ...[leadA, leadB].map((id) => ({ id, enterprise_id: one.enterpriseId, title: 'Held', person_name: 'Kim' })),
        { id: leadOfTwo, enterprise_id: two.enterpriseId, title: 'Other tenant', person_name: 'Lee' },
      ],
    });
    tokenOne = await loginToken(t.app, one.user.email, one.user.password);
    tokenTwo = await loginToken(t.app, two.user.email, two.user.password);
  });
  afterAll(async () => {
    await t.close();
  });

  const holdLead = (id: string) => holdRecord(t, 'leads', id);

  const write = (method: 'POST' | 'PUT', path: string, extra: Record<string, string> = {}) =>
    t.app.inject({
      method,
      url: `/api/v2/${path}`,
      headers: { ...apiHeaders('v2', tokenOne, one.enterpriseId), ...extra },
      payload: { title: `Written ${randomUUID()}`, person_name: 'Kim' },
    });

  let url: string | undefined;
  /** The app on a real socket (started once): a client can go away mid-request. */
  async function listening(): Promise<string> {
    if (url === undefined) {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      url = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    }
    return url;
  }

  it('a transaction held on lead A: a POST and a PUT of lead B of the same enterprise answer at once', async () => {
    const held = await holdLead(leadA);
    try {
      const post = await timed(() => write('POST', 'leads'));
      expect(post.result.statusCode).toBe(201);
      expect(post.ms).toBeLessThan(2_000);
      const put = await timed(() => write('PUT', `leads/${leadB}`));
      expect(put.result.statusCode).toBe(200);
      expect(put.ms).toBeLessThan(2_000);
    } finally {
      await held.release();
    }
  });

  it('a write of the held lead waits at most the lock bound, answers 503 with Retry-After and writes nothing; the retry with its key succeeds once', async () => {
    const held = await holdLead(leadA);
    const key = randomUUID();
    const title = `Retried ${key}`;
    const put = () =>
      t.app.inject({
        method: 'PUT',
        url: `/api/v2/leads/${leadA}`,
        headers: { ...apiHeaders('v2', tokenOne, one.enterpriseId), 'idempotency-key': key },
        payload: { title, person_name: 'Kim' },
      });
    try {
      const refused = await timed(put);
      expect(refused.result.statusCode).toBe(503);
      expect(refused.result.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.result.json()).toEqual({ message: 'The service is temporarily unavailable.' });
      expect(refused.ms).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS * 0.9);
      expect(refused.ms).toBeLessThan(LOCK_TIMEOUT_MS + 2_000);
      const stored = await selectRows(t.dataSource, `SELECT 1 FROM idempotency_keys WHERE key = $1`, [key]);
      expect(stored).toEqual([]);
    } finally {
      await held.release();
    }
    const retried = await put();
    expect(retried.statusCode).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await put();
    expect(replayed.statusCode).toBe(200);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    const [row] = await selectRows<{ title: string }>(t.dataSource, `SELECT title FROM leads WHERE id = $1`, [leadA]);
    expect(row?.title).toBe(title);
  });

  it('20 writers of the held lead wait in their enterprise’s share of the pool; both enterprises read at once', async () => {
    const held = await holdLead(leadA);
    try {
      const writers = Array.from({ length: 20 }, () => write('PUT', `leads/${leadA}`));
      // Let the writers take their enterprise's share of the pool and queue behind it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const readsAtOnce = async (headers: Record<string, string>, paths: string[]) => {
        for (const path of paths) {
          const read = await timed(() => t.app.inject({ method: 'GET', url: `/api/v2/${path}`, headers }));
          expect(read.result.statusCode).toBe(200);
          expect(read.ms).toBeLessThan(500);
        }
      };
      await readsAtOnce(apiHeaders('v2', tokenTwo, two.enterpriseId), [
        'people',
        'leads',
        `leads/${leadOfTwo}`,
        'organisations',
      ]);
      // Reads wait on no row lock, so the bulkhead leaves them out: the waiting writers'
      // own enterprise reads at once too, the held lead included.
      await readsAtOnce(apiHeaders('v2', tokenOne, one.enterpriseId), ['people', 'leads', `leads/${leadA}`]);
      const answers = await Promise.all(writers);
      // Each waited for the lock or for a place in the bulkhead, a bounded time: never a 5xx but 503.
      for (const answer of answers) expect([200, 503]).toContain(answer.statusCode);
      expect(answers.some((answer) => answer.statusCode === 503)).toBe(true);
    } finally {
      await held.release();
    }
    expect((await write('PUT', `leads/${leadA}`)).statusCode).toBe(200);
  });

  it('8 writers queued on the held lead: 10 other creates of the same enterprise answer at their usual speed, and the 8 get the 503 after the lock bound', async () => {
    const usual = await timed(() => write('POST', 'leads'));
    expect(usual.result.statusCode).toBe(201);
    const held = await holdLead(leadA);
    try {
      const queued = Array.from({ length: 8 }, () => timed(() => write('PUT', `leads/${leadA}`)));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const creates = await Promise.all(Array.from({ length: 10 }, () => timed(() => write('POST', 'leads'))));
      // Without the per-record queue the 8 writers took the enterprise's 3 places and the
      // creates waited behind them for the lock bound, then answered 503.
      expect(creates.map((create) => create.result.statusCode)).toEqual(Array(10).fill(201));
      expect(Math.max(...creates.map((create) => create.ms))).toBeLessThan(LOCK_TIMEOUT_MS / 2);
      const writers = await Promise.all(queued);
      for (const writer of writers) {
        expect(writer.result.statusCode).toBe(503);
        expect(writer.result.json()).toEqual({ message: 'The service is temporarily unavailable.' });
        // Its turn in the record's queue and then the lock, 1.1 times the bound in all (measured
        // by the test below); this bound is loose for a loaded machine.
        expect(writer.ms).toBeLessThan(2 * LOCK_TIMEOUT_MS + 1_500);
      }
    } finally {
      await held.release();
    }
    expect((await write('PUT', `leads/${leadA}`)).statusCode).toBe(200);
  });

  it('writers queued on a held lead: two reach the database (one on the lock, the next behind it), the rest wait in the process', async () => {
    const held = await holdLead(leadA);
    const observer = new pg.Client(t.database.url);
    await observer.connect();
    try {
      const queued = Array.from({ length: 8 }, () => write('PUT', `leads/${leadA}`));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const [row] = (
        await observer.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).rows;
      // One at a time made every hand-over a round trip to the process (a third fewer writes a
      // second on one hot record); the enterprise's third place stays free for its other writes.
      expect(row?.waiting).toBe(2);
      for (const answer of await Promise.all(queued)) expect(answer.statusCode).toBe(503);
    } finally {
      await observer.end();
      await held.release();
    }
  });

  it('a client that gives up while its request waits for a place gets it given back (real socket)', async () => {
    const base = await listening();
    const bulkhead = t.app.get(EnterpriseAccess).bulkhead;
    if (!bulkhead) throw new Error('the test app runs with a bulkhead');
    const held = await holdLead(leadA);
    const headers = { ...apiHeaders('v2', tokenOne, one.enterpriseId), 'content-type': 'application/json' };
    const send = (method: string, path: string, body?: string) => {
      const req = request(`${base}/api/v2/${path}`, { method, headers });
      const answered = new Promise<number>((resolveStatus) => {
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolveStatus(res.statusCode ?? 0));
        });
        req.on('error', () => resolveStatus(0));
      });
      req.end(body);
      return { req, answered };
    };
    // The enterprise's three places go to writers of the held lead; two more writes wait for a place.
    const body = JSON.stringify({ title: 'Socket', person_name: 'Kim' });
    const writers = Array.from({ length: bulkhead.limit }, () => send('PUT', `leads/${leadA}`, body));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const waiting = [send('PUT', `leads/${leadB}`, body), send('POST', 'leads', body)];
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (const write of waiting) write.req.destroy();
    await held.release();
    expect(await Promise.all(writers.map((w) => w.answered))).toEqual(writers.map(() => 200));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bulkhead.active(one.enterpriseId)).toBe(0);
    expect((await write('POST', 'leads')).statusCode).toBe(201);
  });

  it('a client that goes away before its place is granted does not keep the place (real socket)', async () => {
    const base = await listening();
    const bulkhead = t.app.get(EnterpriseAccess).bulkhead;
    if (!bulkhead) throw new Error('the test app runs with a bulkhead');
    // Token lookups wait on this lock, so the clients go away before the enterprise check runs.
    const blocker = new pg.Client(t.database.url);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE access_tokens IN ACCESS EXCLUSIVE MODE');
    const headers = { ...apiHeaders('v2', tokenOne, one.enterpriseId), 'content-type': 'application/json' };
    const clients = Array.from({ length: bulkhead.limit + 2 }, () => {
      const req = request(`${base}/api/v2/leads/${leadB}`, { method: 'PUT', headers });
      req.on('error', () => undefined);
      req.end(JSON.stringify({ title: 'Gone', person_name: 'Kim' }));
      return req;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    for (const req of clients) req.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await blocker.query('ROLLBACK');
    await blocker.end();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bulkhead.active(one.enterpriseId)).toBe(0);
    const after = await timed(() => write('PUT', `leads/${leadB}`));
    expect(after.result.statusCode).toBe(200);
    expect(after.ms).toBeLessThan(LOCK_TIMEOUT_MS);
  });
});

/**
 * The lock bound is a write's in all: a write that waited more than a tenth of it for its turn
 * in the process (behind the writers of its record) then waits for the row lock only what is
 * left of the bound, not the bound again. A bound of 4 s here keeps the two apart on a loaded machine: a writer that waited
 * 3.2 s for its turn answered after 7 s when each wait had the whole bound.
 */
describe('a write waits at most 1.1 times the lock bound in all', () => {
  const LOCK_TIMEOUT_MS = 4_000;
  let t: TestApp;
  let tenant: Tenant;
  let token = '';
  const lead = randomUUID();

  beforeAll(async () => {
    t = await isolationApp(LOCK_TIMEOUT_MS);
    const { tenant: created, doc } = tenantDocument();
    tenant = created;
    await importFixture(t, doc);
    await importFixture(t, {
      leads: [{ id: lead, enterprise_id: tenant.enterpriseId, title: 'Hot', person_name: 'Kim' }],
    });
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
  });
  afterAll(async () => {
    await t.close();
  });

  const update = () =>
    t.app.inject({
      method: 'PUT',
      url: `/api/v2/leads/${lead}`,
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title: `Written ${randomUUID()}`, person_name: 'Kim' },
    });

  it('a writer let in after waiting its turn gives up on the lock when the bound is spent', async () => {
    const first = await holdRecord(t, 'leads', lead);
    const second = new pg.Client(t.database.url);
    await second.connect();
    try {
      // Two writers reach the database and wait on the lock; the third waits its turn in the process.
      const writers = [timed(update), timed(update)];
      await new Promise((resolve) => setTimeout(resolve, 200));
      const third = timed(update);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Another transaction queues for the lock behind the two writers, and keeps it once it has it.
      await second.query('BEGIN');
      const taken = second.query(`SELECT 1 FROM leads WHERE id = $1 FOR UPDATE`, [lead]);
      await new Promise((resolve) => setTimeout(resolve, LOCK_TIMEOUT_MS * 0.8 - 400));
      await first.release();
      await taken;
      for (const writer of await Promise.all(writers)) expect(writer.result.statusCode).toBe(200);
      // Let in when the first writer answered (about 0.8 of the bound), it waits the rest only.
      const late = await third;
      expect(late.result.statusCode).toBe(503);
      expect(late.result.json()).toEqual({ message: 'The service is temporarily unavailable.' });
      expect(late.ms).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS * 0.9);
      expect(late.ms).toBeLessThan(LOCK_TIMEOUT_MS + 1_500);
    } finally {
      await second.query('ROLLBACK').catch(() => undefined);
      await second.end();
    }
    // Nothing was written by the writer that gave up; the record is writable again.
    expect((await update()).statusCode).toBe(200);
  });
});
