import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sha256Hex } from '../../src/auth/access-token.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|[A-Za-z0-9]{48}$/;

describe('POST /login and /register', () => {
  let t: TestApp;
  let tenant: Tenant;
  const inactive = { email: 'inactive@example.com', password: 'inactive-password' };

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    fixture.doc.users?.push({
      id: '5a1e0000-0000-4000-8000-000000000001',
      name: 'Ina Inactive',
      email: inactive.email,
      password: inactive.password,
      is_active: false,
      created_at: '2026-01-02T03:04:05.678Z',
      updated_at: '2026-01-02T03:04:05.678Z',
      enterprise_ids: [tenant.enterpriseId],
    });
    await importFixture(t, fixture.doc);
  });
  afterAll(async () => {
    await t.close();
  });

  const login = (version: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url: `/api/${version}/login`, payload: payload as Record<string, unknown> });

  it('v2 answers 200 with the v2 user record and a token of the form <id>|<secret>', async () => {
    const res = await login('v2', { email: tenant.user.email, password: tenant.user.password });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ user: Record<string, unknown>; access_token: string }>();
    expect(Object.keys(body)).toEqual(['user', 'access_token']);
    expect(Object.keys(body.user)).toEqual(['id', 'name', 'email', 'is_active', 'created_at', 'updated_at']);
    expect(body.user).toMatchObject({
      id: tenant.user.id,
      name: 'Ann Broker',
      email: tenant.user.email,
      is_active: true,
    });
    expect(body.access_token).toMatch(TOKEN);
  });

  it('v1 answers the user in v1 casing, envelope keys unchanged', async () => {
    const res = await login('v1', { email: tenant.user.email, password: tenant.user.password });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ user: Record<string, unknown>; access_token: string }>();
    expect(Object.keys(body)).toEqual(['user', 'access_token']);
    expect(Object.keys(body.user)).toEqual(['ID', 'Name', 'Email', 'IsActive', 'CreatedAt', 'UpdatedAt']);
    expect(body.user.ID).toBe(tenant.user.id);
  });

  it('accepts the email in any letter case', async () => {
    const res = await login('v2', { email: tenant.user.email.toUpperCase(), password: tenant.user.password });
    expect(res.statusCode).toBe(200);
  });

  it('stores only the SHA-256 of the token secret', async () => {
    const res = await login('v2', { email: tenant.user.email, password: tenant.user.password });
    const [id, secret] = res.json<{ access_token: string }>().access_token.split('|');
    const rows = await selectRows<{ token_sha256: string }>(
      t.dataSource,
      `SELECT token_sha256 FROM access_tokens WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{ token_sha256: sha256Hex(secret ?? '') }]);
  });

  it.each([
    ['a wrong password', () => ({ email: tenant.user.email, password: 'wrong-password' })],
    ['an unknown email', () => ({ email: 'nobody@example.com', password: 'whatever' })],
    ['an inactive user', () => inactive],
  ])('answers 401 Invalid credentials. for %s, in both versions', async (_name, body) => {
    for (const version of ['v1', 'v2']) {
      const res = await login(version, body());
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Invalid credentials.' });
    }
  });

  it.each([
    [
      {},
      'The email field is required. (and 1 more error)',
      { email: ['The email field is required.'], password: ['The password field is required.'] },
    ],
    [{ password: 'x' }, 'The email field is required.', { email: ['The email field is required.'] }],
    [{ email: '', password: 'x' }, 'The email field is required.', { email: ['The email field is required.'] }],
    [
      { email: 'not-an-email', password: 'x' },
      'The email field must be a valid email address.',
      { email: ['The email field must be a valid email address.'] },
    ],
    [{ email: 'a@example.com' }, 'The password field is required.', { password: ['The password field is required.'] }],
    [
      { email: 'a@example.com', password: 12345 },
      'The password field must be a string.',
      { password: ['The password field must be a string.'] },
    ],
    [
      { Email: 'a@example.com', Password: 'x' },
      'The email field is required. (and 1 more error)',
      { email: ['The email field is required.'], password: ['The password field is required.'] },
    ],
  ])('answers 422 for %j (login bodies are not normalised)', async (body, message, errors) => {
    for (const version of ['v1', 'v2']) {
      const res = await login(version, body);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ message, errors });
    }
  });

  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const)(
    '/register answers 403 to %s with no token',
    async (method) => {
      for (const version of ['v1', 'v2']) {
        const res = await t.app.inject({
          method,
          url: `/api/${version}/register`,
          payload: method === 'GET' ? undefined : { email: 'a@b.c' },
        });
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ message: 'Registration is disabled. Accounts are created by an administrator.' });
      }
    },
  );
});
