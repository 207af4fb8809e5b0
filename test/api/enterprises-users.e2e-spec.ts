import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UserAccounts } from '../../src/users/user-accounts.js';
import { apiHeaders, importFixture, loginToken } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const T1 = '2026-01-01T09:00:00.000Z';
const T2 = '2026-02-01T09:00:00.000Z';
const T3 = '2026-03-01T09:00:00.000Z';

describe('enterprises and users', () => {
  let t: TestApp;
  let token: string;
  const own = randomUUID();
  const second = randomUUID();
  const foreign = randomUUID();
  const ann = randomUUID();
  const bob = randomUUID();
  const otto = randomUUID();

  beforeAll(async () => {
    t = await createTestApp();
    await importFixture(t, {
      enterprises: [
        { id: own, name: 'Own Finance', is_active: true, created_at: T1, updated_at: T2 },
        { id: second, name: 'Second Finance', is_active: false, created_at: T2, updated_at: T2 },
        { id: foreign, name: 'Foreign Finance', is_active: true, created_at: T3, updated_at: T3 },
      ],
      users: [
        {
          id: ann,
          name: 'Ann Broker',
          email: `ann-${own}@example.com`,
          password: 'ann-password',
          is_active: true,
          enterprise_ids: [own, second],
          created_at: T1,
          updated_at: T1,
        },
        {
          id: bob,
          name: 'Bob Broker',
          email: `bob-${own}@example.com`,
          password: 'bob-password',
          is_active: false,
          enterprise_ids: [own],
          created_at: T2,
          updated_at: T3,
        },
        {
          id: otto,
          name: 'Otto Outsider',
          email: `otto-${own}@example.com`,
          password: 'otto-password',
          is_active: true,
          enterprise_ids: [foreign],
          created_at: T3,
          updated_at: T3,
        },
      ],
    });
    token = await loginToken(t.app, `ann-${own}@example.com`, 'ann-password');
  });
  afterAll(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>) =>
    t.app.inject({
      method,
      url,
      headers,
      payload: method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' },
    });

  describe('GET /enterprises (no enterprise header, unpaginated)', () => {
    it('v2 lists the caller’s enterprises, newest first, unpaginated', async () => {
      const res = await call('GET', '/api/v2/enterprises', apiHeaders('v2', token));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        data: [
          { id: second, name: 'Second Finance', is_active: false, created_at: T2, updated_at: T2 },
          { id: own, name: 'Own Finance', is_active: true, created_at: T1, updated_at: T2 },
        ],
      });
    });

    it('v1 uses ID, Name, IsActive and lowercase timestamps', async () => {
      const res = await call('GET', '/api/v1/enterprises', apiHeaders('v1', token));
      expect(res.json()).toEqual({
        data: [
          { ID: second, Name: 'Second Finance', IsActive: false, created_at: T2, updated_at: T2 },
          { ID: own, Name: 'Own Finance', IsActive: true, created_at: T1, updated_at: T2 },
        ],
      });
    });
  });

  describe('GET /enterprises/{id}', () => {
    it('answers a member’s enterprise in both versions', async () => {
      const v2 = await call('GET', `/api/v2/enterprises/${own}`, apiHeaders('v2', token));
      expect(v2.json()).toEqual({
        data: { id: own, name: 'Own Finance', is_active: true, created_at: T1, updated_at: T2 },
      });
      const v1 = await call('GET', `/api/v1/enterprises/${own}`, apiHeaders('v1', token));
      expect(v1.json()).toEqual({
        data: { ID: own, Name: 'Own Finance', IsActive: true, created_at: T1, updated_at: T2 },
      });
    });

    it('is 403 for an enterprise the caller does not belong to, with none of its data', async () => {
      const res = await call('GET', `/api/v2/enterprises/${foreign}`, apiHeaders('v2', token));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Forbidden.' });
    });

    it.each([
      ['an unknown id', '00000000-0000-4000-8000-000000000000'],
      ['a non-UUID id', 'acme'],
    ])('is 404 for %s', async (_name, id) => {
      const res = await call('GET', `/api/v2/enterprises/${id}`, apiHeaders('v2', token));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: `No query results for model [Enterprise] ${id}` });
    });
  });

  describe('GET /users', () => {
    it('v2 lists the members of the header’s enterprise, newest first', async () => {
      const res = await call('GET', '/api/v2/users', apiHeaders('v2', token, own));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        data: [
          {
            id: bob,
            name: 'Bob Broker',
            email: `bob-${own}@example.com`,
            is_active: false,
            created_at: T2,
            updated_at: T3,
          },
          {
            id: ann,
            name: 'Ann Broker',
            email: `ann-${own}@example.com`,
            is_active: true,
            created_at: T1,
            updated_at: T1,
          },
        ],
      });
    });

    it('v1 lists them in v1 casing', async () => {
      const res = await call('GET', '/api/v1/users', apiHeaders('v1', token, own));
      expect(res.json()).toEqual({
        data: [
          {
            ID: bob,
            Name: 'Bob Broker',
            Email: `bob-${own}@example.com`,
            IsActive: false,
            CreatedAt: T2,
            UpdatedAt: T3,
          },
          {
            ID: ann,
            Name: 'Ann Broker',
            Email: `ann-${own}@example.com`,
            IsActive: true,
            CreatedAt: T1,
            UpdatedAt: T1,
          },
        ],
      });
    });
  });

  describe('GET /memberships (v2)', () => {
    it("shows each member's role, the users' records staying as they were; v1 has no such route", async () => {
      await new UserAccounts(t.dataSource).setRole(`bob-${own}@example.com`, own, 'member');
      const res = await call('GET', '/api/v2/memberships', apiHeaders('v2', token, own));
      expect(res.statusCode).toBe(200);
      const body = res.json<{
        data: { user_id: string; role: string; created_at: string }[];
        meta: { total: number };
      }>();
      expect(body.data.map((m) => [m.user_id, m.role]).sort()).toEqual(
        [
          [ann, 'admin'],
          [bob, 'member'],
        ].sort(),
      );
      expect(body.meta.total).toBe(2);
      expect(body.data[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const users = await call('GET', `/api/v2/users/${bob}`, apiHeaders('v2', token, own));
      expect(Object.keys(users.json<{ data: object }>().data)).not.toContain('role');
      expect((await call('GET', '/api/v1/memberships', apiHeaders('v1', token, own))).statusCode).toBe(404);
    });
  });

  describe('GET /users/{id}', () => {
    it('answers a member of the enterprise in both versions', async () => {
      const v2 = await call('GET', `/api/v2/users/${bob}`, apiHeaders('v2', token, own));
      expect(v2.json()).toEqual({
        data: {
          id: bob,
          name: 'Bob Broker',
          email: `bob-${own}@example.com`,
          is_active: false,
          created_at: T2,
          updated_at: T3,
        },
      });
      const v1 = await call('GET', `/api/v1/users/${bob}`, apiHeaders('v1', token, own));
      expect(v1.json()).toEqual({
        data: {
          ID: bob,
          Name: 'Bob Broker',
          Email: `bob-${own}@example.com`,
          IsActive: false,
          CreatedAt: T2,
          UpdatedAt: T3,
        },
      });
    });

    it.each(['v1', 'v2'] as const)(
      '%s: a user of another enterprise is 403 with none of its data (the default user look-up)',
      async (version) => {
        const res = await call('GET', `/api/${version}/users/${otto}`, apiHeaders(version, token, own));
        expect(res.statusCode).toBe(403);
        expect(res.body).not.toContain('Otto');
        expect(res.json()).toEqual({ message: 'Forbidden.' });
      },
    );

    it.each([
      ['an unknown id', '00000000-0000-4000-8000-000000000000'],
      ['a non-UUID id', '42'],
    ])('is 404 for %s', async (_name, id) => {
      const res = await call('GET', `/api/v2/users/${id}`, apiHeaders('v2', token, own));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: `No query results for model [User] ${id}` });
    });
  });

  describe('write methods are 403 after authentication', () => {
    const paths = (id: string) => [
      '/enterprises',
      `/enterprises/${id}`,
      '/enterprises/not-a-uuid',
      '/users',
      `/users/${id}`,
      '/users/not-a-uuid',
    ];

    it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)('%s on every enterprise and user path', async (method) => {
      for (const version of ['v1', 'v2'] as const) {
        for (const path of paths(own)) {
          const res = await call(method, `/api/${version}${path}`, apiHeaders(version, token, own));
          expect({ path, status: res.statusCode, body: res.json<unknown>() }).toEqual({
            path,
            status: 403,
            body: { message: 'Forbidden.' },
          });
        }
      }
    });

    it('answers 401 first when there is no token', async () => {
      const res = await call('DELETE', `/api/v2/users/${ann}`, {});
      expect(res.statusCode).toBe(401);
    });

    it('the user paths still need the enterprise header first (the enterprise check before the disabled-write check)', async () => {
      const res = await call('POST', '/api/v2/users', apiHeaders('v2', token));
      expect(res.json()).toEqual({ message: 'The X-Enterprise-Id header is required.' });
    });
  });
});

describe('V1_LEGACY_USER_LOOKUP=true', () => {
  let t: TestApp;
  const own = randomUUID();
  const foreign = randomUUID();
  const otto = randomUUID();
  let token: string;

  beforeAll(async () => {
    t = await createTestApp({ V1_LEGACY_USER_LOOKUP: 'true' });
    await importFixture(t, {
      enterprises: [
        { id: own, name: 'Own' },
        { id: foreign, name: 'Foreign' },
      ],
      users: [
        {
          id: randomUUID(),
          name: 'Ann',
          email: `ann-${own}@example.com`,
          password: 'ann-password',
          enterprise_ids: [own],
        },
        {
          id: otto,
          name: 'Otto',
          email: `otto-${own}@example.com`,
          password: 'otto-password',
          enterprise_ids: [foreign],
        },
      ],
    });
    token = await loginToken(t.app, `ann-${own}@example.com`, 'ann-password');
  });
  afterAll(async () => {
    await t.close();
  });

  it('v1 returns a user of another enterprise, the documented legacy v1 behaviour', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/users/${otto}`,
      headers: apiHeaders('v1', token, own),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: { ID: string } }>().data.ID).toBe(otto);
  });

  it('v2 still refuses it', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v2/users/${otto}`,
      headers: apiHeaders('v2', token, own),
    });
    expect(res.statusCode).toBe(403);
  });
});
