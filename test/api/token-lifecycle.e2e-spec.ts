import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { parseToken } from '../../src/auth/access-token.js';
import { TokenAdmin } from '../../src/auth/token-admin.js';
import { TokenService } from '../../src/auth/token.service.js';
import { selectRows } from '../../src/database/sql.js';
import { setUserActive } from '../../src/users/user-activation.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const UNAUTHENTICATED = { message: 'Unauthenticated.' };

function tokenId(token: string): string {
  const parsed = parseToken(token);
  if (!parsed) throw new Error('not a token');
  return parsed.id;
}

describe('token lifecycle: logout, lifetime, last use, integration tokens, locked users', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    // Login tokens live 60 minutes here; the tests age tokens in the database.
    t = await createTestApp({ TOKEN_LIFETIME_MINUTES: '60' });
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
  });
  afterAll(async () => {
    await t.close();
  });

  const enterprises = (version: 'v1' | 'v2', token: string) =>
    t.app.inject({ method: 'GET', url: `/api/${version}/enterprises`, headers: apiHeaders(version, token) });
  const leads = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/v2/leads', headers: apiHeaders('v2', token, tenant.enterpriseId) });
  const login = () => loginToken(t.app, tenant.user.email, tenant.user.password);

  it.each(['v1', 'v2'] as const)(
    '%s: logout answers 204 and that token answers 401 from then on; other tokens keep working',
    async (version) => {
      const leaving = await login();
      const staying = await login();
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/${version}/logout`,
        headers: { authorization: `Bearer ${leaving}` },
      });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      const after = await enterprises(version, leaving);
      expect(after.statusCode).toBe(401);
      expect(after.json()).toEqual(UNAUTHENTICATED);
      const again = await t.app.inject({
        method: 'POST',
        url: `/api/${version}/logout`,
        headers: { authorization: `Bearer ${leaving}` },
      });
      expect(again.statusCode).toBe(401);
      expect((await enterprises(version, staying)).statusCode).toBe(200);
    },
  );

  it('logout without a token is 401, and GET on it is 405', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v2/logout' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual(UNAUTHENTICATED);
    const get = await t.app.inject({ method: 'GET', url: '/api/v2/logout', headers: apiHeaders('v2', await login()) });
    expect(get.statusCode).toBe(405);
  });

  it('a login token older than TOKEN_LIFETIME_MINUTES answers 401 Unauthenticated.', async () => {
    const token = await login();
    expect((await leads(token)).statusCode).toBe(200);
    await t.dataSource.query(`UPDATE access_tokens SET created_at = now() - interval '61 minutes' WHERE id = $1`, [
      tokenId(token),
    ]);
    const expired = await leads(token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual(UNAUTHENTICATED);
    await t.dataSource.query(`UPDATE access_tokens SET created_at = now() - interval '59 minutes' WHERE id = $1`, [
      tokenId(token),
    ]);
    expect((await leads(token)).statusCode).toBe(200);
  });

  it('writes last_used_at at most once a minute per token', async () => {
    // An integration token has never been used: its first use writes last_used_at.
    const token = await new TokenAdmin(t.dataSource).issueIntegrationToken({ email: tenant.user.email, name: 'Sync' });
    const id = tokenId(token);
    const lastUsed = async () =>
      (
        await selectRows<{ last_used_at: Date | null }>(
          t.dataSource,
          `SELECT last_used_at FROM access_tokens WHERE id = $1`,
          [id],
        )
      )[0]?.last_used_at;
    const tokens = t.app.get(TokenService);
    const spy = jest.spyOn(t.dataSource.logger, 'logQuery');
    const touches = () =>
      spy.mock.calls.filter(([sql]) => /UPDATE access_tokens SET last_used_at = now\(\)\s+WHERE/.test(sql)).length;
    try {
      expect(await lastUsed()).toBeNull();
      expect((await leads(token)).statusCode).toBe(200);
      await tokens.beforeApplicationShutdown();
      const first = await lastUsed();
      expect(first).toBeInstanceOf(Date);
      expect(touches()).toBe(1);

      for (let i = 0; i < 5; i++) expect((await leads(token)).statusCode).toBe(200);
      await tokens.beforeApplicationShutdown();
      expect(touches()).toBe(1);
      expect(await lastUsed()).toEqual(first);

      // A minute later (aged in the database), the next use writes it again.
      await t.dataSource.query(`UPDATE access_tokens SET last_used_at = now() - interval '61 seconds' WHERE id = $1`, [
        id,
      ]);
      const aged = await lastUsed();
      expect((await leads(token)).statusCode).toBe(200);
      await tokens.beforeApplicationShutdown();
      expect(touches()).toBe(2);
      expect((await lastUsed())?.getTime()).toBeGreaterThan(aged?.getTime() ?? Infinity);
    } finally {
      spy.mockRestore();
    }
  });

  it('an integration token works like a login token, is not bound by TOKEN_LIFETIME_MINUTES, and ends at its own expiry', async () => {
    const admin = new TokenAdmin(t.dataSource);
    const token = await admin.issueIntegrationToken({ email: tenant.user.email, name: 'CRM sync', expiresInDays: 30 });
    for (const version of ['v1', 'v2'] as const) expect((await enterprises(version, token)).statusCode).toBe(200);
    expect((await leads(token)).statusCode).toBe(200);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title: 'From the CRM', person: 'Sam' },
    });
    expect(created.statusCode).toBe(201);

    // Older than the login lifetime: still valid.
    await t.dataSource.query(`UPDATE access_tokens SET created_at = now() - interval '10 days' WHERE id = $1`, [
      tokenId(token),
    ]);
    expect((await leads(token)).statusCode).toBe(200);
    // Past its own expiry: 401.
    await t.dataSource.query(`UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      tokenId(token),
    ]);
    const expired = await leads(token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual(UNAUTHENTICATED);
  });

  it('revokes one token by id, or all of a user', async () => {
    const admin = new TokenAdmin(t.dataSource);
    const one = await admin.issueIntegrationToken({ email: tenant.user.email, name: 'One' });
    const two = await admin.issueIntegrationToken({ email: tenant.user.email, name: 'Two' });
    const loginTok = await login();
    await admin.revoke(tokenId(one));
    expect((await leads(one)).statusCode).toBe(401);
    expect((await leads(two)).statusCode).toBe(200);
    expect((await leads(loginTok)).statusCode).toBe(200);
    expect(await admin.revokeAll(tenant.user.email.toUpperCase())).toBeGreaterThanOrEqual(2);
    expect((await leads(two)).statusCode).toBe(401);
    expect((await leads(loginTok)).statusCode).toBe(401);
    await expect(admin.revoke(tokenId(one))).rejects.toThrow(`No token has the id ${tokenId(one)}.`);
  });

  it('a deactivated user cannot log in and their tokens answer 401; activated again, the same tokens work', async () => {
    const token = await login();
    await setUserActive(t.dataSource, tenant.user.email, false);
    try {
      expect((await leads(token)).statusCode).toBe(401);
      const refused = await t.app.inject({
        method: 'POST',
        url: '/api/v2/login',
        payload: { email: tenant.user.email, password: tenant.user.password },
      });
      expect(refused.statusCode).toBe(401);
      await expect(
        new TokenAdmin(t.dataSource).issueIntegrationToken({ email: tenant.user.email, name: 'Locked' }),
      ).rejects.toThrow('is inactive');
    } finally {
      await setUserActive(t.dataSource, tenant.user.email, true);
    }
    expect((await leads(token)).statusCode).toBe(200);
    await expect(setUserActive(t.dataSource, 'nobody@example.com', false)).rejects.toThrow(
      'No user has the email nobody@example.com.',
    );
  });
});
