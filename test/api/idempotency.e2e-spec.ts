import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IdempotentWrites } from '../../src/idempotency/idempotent-writes.service.js';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

type Version = 'v1' | 'v2';

describe('Idempotency-Key on lead writes', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  let colleagueToken: string;
  let secondEnterprise: string;
  const colleague = {
    id: randomUUID(),
    email: `colleague-${randomUUID().slice(0, 8)}@example.com`,
    password: 'colleague-pw',
  };
  const existing = randomUUID();

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    secondEnterprise = randomUUID();
    await importFixture(t, {
      ...fixture.doc,
      enterprises: [...(fixture.doc.enterprises ?? []), { id: secondEnterprise, name: 'Second', is_active: true }],
      users: [
        ...(fixture.doc.users ?? []).map((u) =>
          u.id === tenant.user.id ? { ...u, enterprise_ids: [tenant.enterpriseId, secondEnterprise] } : u,
        ),
        {
          id: colleague.id,
          name: 'Colin Colleague',
          email: colleague.email,
          password: colleague.password,
          is_active: true,
          enterprise_ids: [tenant.enterpriseId],
        },
      ],
      leads: [{ id: existing, enterprise_id: tenant.enterpriseId, title: 'Existing', person_name: 'Pat' }],
    });
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    colleagueToken = await loginToken(t.app, colleague.email, colleague.password);
  });
  afterAll(async () => {
    await t.close();
  });

  const headers = (version: Version, key?: string, who = token, enterprise = tenant.enterpriseId) => ({
    ...apiHeaders(version, who, enterprise),
    ...(key === undefined ? {} : { 'idempotency-key': key }),
  });

  const create = (version: Version, payload: object, key?: string, who?: string, enterprise?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/${version}/leads`,
      headers: headers(version, key, who, enterprise),
      payload,
    });

  const update = (version: Version, id: string, payload: object, key?: string) =>
    t.app.inject({ method: 'PUT', url: `/api/${version}/leads/${id}`, headers: headers(version, key), payload });

  async function leadCount(enterpriseId = tenant.enterpriseId): Promise<number> {
    const [row] = await selectRows<{ n: number }>(
      t.dataSource,
      `SELECT count(*)::int AS n FROM leads WHERE enterprise_id = $1`,
      [enterpriseId],
    );
    return row?.n ?? -1;
  }

  async function storedKeys(): Promise<number> {
    const [row] = await selectRows<{ n: number }>(t.dataSource, `SELECT count(*)::int AS n FROM idempotency_keys`);
    return row?.n ?? -1;
  }

  it.each(['v1', 'v2'] as const)(
    '%s: a repeated create answers the first status and body again and creates one lead',
    async (version) => {
      const key = randomUUID();
      const body = version === 'v1' ? { Title: 'Retry me', PersonName: 'Ann' } : { title: 'Retry me', person: 'Ann' };
      const before = await leadCount();
      const first = await create(version, body, key);
      expect(first.statusCode).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const second = await create(version, body, key);
      expect(second.statusCode).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toBe(first.body);
      expect(await leadCount()).toBe(before + 1);
    },
  );

  it('v2: the same body in other key casings and order is the same request (after normalisation)', async () => {
    const key = randomUUID();
    const first = await create('v2', { title: 'Cased', person_name: 'Bo' }, key);
    const second = await create('v2', { PersonName: 'Bo', Title: 'Cased' }, key);
    expect(first.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
  });

  it.each(['v1', 'v2'] as const)(
    '%s: a repeated update answers the first answer again and writes nothing, even after a later change',
    async (version) => {
      const key = randomUUID();
      const body =
        version === 'v1' ? { Title: `First ${version}`, person: 'Pat' } : { title: `First ${version}`, person: 'Pat' };
      const first = await update(version, existing, body, key);
      expect(first.statusCode).toBe(200);
      // Someone else changes the lead afterwards, without a key.
      const later = await update(version, existing, {
        ...body,
        ...(version === 'v1' ? { Title: 'Later' } : { title: 'Later' }),
      });
      expect(later.statusCode).toBe(200);
      const [before] = await selectRows<{ title: string; updated_at: Date }>(
        t.dataSource,
        `SELECT title, updated_at FROM leads WHERE id = $1`,
        [existing],
      );
      const replay = await update(version, existing, body, key);
      expect(replay.statusCode).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toBe(first.body);
      const [after] = await selectRows<{ title: string; updated_at: Date }>(
        t.dataSource,
        `SELECT title, updated_at FROM leads WHERE id = $1`,
        [existing],
      );
      expect(after).toEqual(before);
      expect(after?.title).toBe('Later');
    },
  );

  it('answers 422 when the key was used for another body, another path or another method, and writes nothing', async () => {
    const key = randomUUID();
    expect((await create('v2', { title: 'Original', person: 'Cy' }, key)).statusCode).toBe(201);
    const before = await leadCount();
    const [{ updated_at: touched } = { updated_at: new Date(0) }] = await selectRows<{ updated_at: Date }>(
      t.dataSource,
      `SELECT updated_at FROM leads WHERE id = $1`,
      [existing],
    );
    for (const res of [
      await create('v2', { title: 'Something else', person: 'Cy' }, key),
      await create('v1', { title: 'Original', person: 'Cy' }, key),
      await update('v2', existing, { title: 'Original', person: 'Cy' }, key),
    ]) {
      expect(res.statusCode).toBe(422);
      const message = 'The Idempotency-Key was already used for a different request (another method, path or body).';
      expect(res.json()).toEqual({ message, errors: { 'Idempotency-Key': [message] } });
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await leadCount()).toBe(before);
    const [after] = await selectRows<{ updated_at: Date }>(t.dataSource, `SELECT updated_at FROM leads WHERE id = $1`, [
      existing,
    ]);
    expect(after?.updated_at).toEqual(touched);
  });

  it('scopes keys per user and per enterprise', async () => {
    const key = randomUUID();
    const body = { title: 'Scoped', person: 'Di' };
    const mine = await create('v2', body, key);
    const colleagues = await create('v2', body, key, colleagueToken);
    const otherEnterprise = await create('v2', body, key, token, secondEnterprise);
    for (const res of [mine, colleagues, otherEnterprise]) {
      expect(res.statusCode).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    const ids = [mine, colleagues, otherEnterprise].map((res) => res.json<{ data: { id: string } }>().data.id);
    expect(new Set(ids).size).toBe(3);
  });

  it('20 concurrent requests with one key create exactly one lead; every answer is that lead', async () => {
    const key = randomUUID();
    const before = await leadCount();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => create('v2', { title: 'Concurrent', person: 'Ed' }, key)),
    );
    expect(answers.map((res) => res.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((res) => res.body)).size).toBe(1);
    expect(answers.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(await leadCount()).toBe(before + 1);
  });

  it.each([
    ['empty', '', 'The Idempotency-Key header must not be empty.'],
    ['256 characters', 'k'.repeat(256), 'The Idempotency-Key header must not be greater than 255 characters.'],
    ['a space', 'two words', 'The Idempotency-Key header must contain only visible ASCII characters (no spaces).'],
    ['non-ASCII', 'cl\u00e9', 'The Idempotency-Key header must contain only visible ASCII characters (no spaces).'],
  ])('refuses a key that is %s with the 400 validation envelope, writing nothing', async (_, key, message) => {
    const before = await leadCount();
    const stored = await storedKeys();
    for (const version of ['v1', 'v2'] as const) {
      const res = await create(version, { title: 'Bad key', person: 'Flo' }, key);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: 'The given data was invalid.', errors: { 'Idempotency-Key': [message] } });
    }
    expect(await leadCount()).toBe(before);
    expect(await storedKeys()).toBe(stored);
  });

  it('takes a key of 255 visible ASCII characters', async () => {
    const key = `${randomUUID()}!~"`.padEnd(255, 'x');
    const first = await create('v2', { title: 'Long key', person: 'Gus' }, key);
    const second = await create('v2', { title: 'Long key', person: 'Gus' }, key);
    expect(first.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
  });

  it('does not remember a request that failed validation: the key can be used with a fixed body', async () => {
    const key = randomUUID();
    const invalid = await create('v2', { person: 'Hal' }, key);
    expect(invalid.statusCode).toBe(400);
    const fixed = await create('v2', { title: 'Fixed', person: 'Hal' }, key);
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    expect(fixed.json<{ data: { title: string } }>().data.title).toBe('Fixed');
  });

  it('does not remember a refused update (404): nothing was written', async () => {
    const key = randomUUID();
    const missing = await update('v2', randomUUID(), { title: 'Nope', person: 'Ida' }, key);
    expect(missing.statusCode).toBe(404);
    const [row] = await selectRows<{ n: number }>(
      t.dataSource,
      `SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    expect(row?.n).toBe(0);
  });

  it('forgets a key after 24 hours: it is free again, and the purge deletes it', async () => {
    const key = randomUUID();
    expect((await create('v2', { title: 'Day one', person: 'Jo' }, key)).statusCode).toBe(201);
    await t.dataSource.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 second' WHERE key = $1`,
      [key],
    );
    // Older than a day, not purged yet: a new request with the key writes (no 422, no replay).
    const before = await leadCount();
    const again = await create('v2', { title: 'Day two', person: 'Jo' }, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await leadCount()).toBe(before + 1);

    const stale = randomUUID();
    expect((await create('v2', { title: 'Stale', person: 'Jo' }, stale)).statusCode).toBe(201);
    await t.dataSource.query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = $1`, [
      stale,
    ]);
    const writes = t.app.get(IdempotentWrites);
    await writes.settled();
    expect(await writes.purgeExpired()).toBe(1);
    const keys = await selectRows<{ key: string }>(
      t.dataSource,
      `SELECT key FROM idempotency_keys WHERE key = ANY($1)`,
      [[key, stale]],
    );
    expect(keys.map((row) => row.key)).toEqual([key]);
  });

  it('purges expired keys lazily after a remembered write', async () => {
    await t.dataSource.query(
      `INSERT INTO idempotency_keys (user_id, enterprise_id, key, request_sha256, response_body, created_at)
       VALUES ($1, $2, 'ancient', repeat('0', 64), '{}', now() - interval '3 days')`,
      [tenant.user.id, tenant.enterpriseId],
    );
    const writes = t.app.get(IdempotentWrites);
    await writes.settled();
    // The purge runs at most once a minute per process; make this process due.
    (writes as unknown as { lastPurge: number }).lastPurge = 0;
    expect((await create('v2', { title: 'Triggers purge', person: 'Kim' }, randomUUID())).statusCode).toBe(201);
    await writes.settled();
    const rows = await selectRows(t.dataSource, `SELECT 1 FROM idempotency_keys WHERE key = 'ancient'`);
    expect(rows).toHaveLength(0);
  });

  it('leaves a request without the header exactly as before: no key stored, no replay header', async () => {
    const stored = await storedKeys();
    const body = { title: 'No key', person: 'Lou' };
    const first = await create('v2', body);
    const second = await create('v2', body);
    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(first.json<{ data: { id: string } }>().data.id).not.toBe(second.json<{ data: { id: string } }>().data.id);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await storedKeys()).toBe(stored);
  });
});
