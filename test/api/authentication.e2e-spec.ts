import { beforeAll, describe, expect, it } from '@jest/globals';
import { runCli } from '../helpers/run-cli.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { TEST_APP_KEY, type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

describe('bearer authentication and the enterprise header', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;

  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });

  it.each([
    ['no Authorization header', {}],
    ['a non-bearer scheme', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['a malformed token', { authorization: 'Bearer not-a-token' }],
    ['an unknown token id', { authorization: 'Bearer 00000000-0000-4000-8000-000000000000|' + 'a'.repeat(48) }],
  ])('answers 401 Unauthenticated. with %s, in both versions', async (_name, headers) => {
    for (const version of ['v1', 'v2'] as const) {
      const res = await get(`/api/${version}/users`, {
        ...headers,
        [version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id']: tenant.enterpriseId,
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Unauthenticated.' });
    }
  });

  it('reads the token from the Authorization header only: scheme in any case, nothing else', async () => {
    const enterprise = { 'X-Enterprise-Id': tenant.enterpriseId };
    expect((await get('/api/v2/users', { ...enterprise, authorization: `bearer ${token}` })).statusCode).toBe(200);
    expect((await get('/api/v2/users', { ...enterprise, authorization: `BEARER ${token}` })).statusCode).toBe(200);
    // A token in the URL ends up in access logs and browser history: never read.
    const inQuery = await get(`/api/v2/users?access_token=${encodeURIComponent(token)}`, enterprise);
    expect(inQuery.statusCode).toBe(401);
    for (const authorization of [`Bearer  ${token}`, `Bearer ${token} extra`, 'Bearer', 'Bearer ']) {
      const res = await get('/api/v2/users', { ...enterprise, authorization });
      expect([authorization, res.statusCode]).toEqual([authorization, 401]);
    }
  });

  it('never reads access_token from a query string or body (the bearer strategy would)', async () => {
    const enterprise = { 'X-Enterprise-Id': tenant.enterpriseId };
    const auth = { authorization: `Bearer ${token}` };
    const post = (url: string, headers: Record<string, string>, payload: object) =>
      t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload });
    // Alone, a token in the body is no token.
    const bodyOnly = await post('/api/v2/leads', enterprise, { access_token: token });
    expect(bodyOnly.statusCode).toBe(401);
    expect(bodyOnly.json()).toEqual({ message: 'Unauthenticated.' });
    expect(
      (await post('/api/v1/leads', { EnterpriseID: tenant.enterpriseId }, { access_token: token })).statusCode,
    ).toBe(401);
    // Next to the header, neither a query nor a body access_token is read, so the header's token stands
    // (passport-http-bearer on its own would refuse a request that carries two).
    const withQuery = await get(`/api/v2/users?access_token=${encodeURIComponent(token)}`, { ...enterprise, ...auth });
    expect(withQuery.statusCode).toBe(200);
    const withBody = await post('/api/v2/leads', { ...enterprise, ...auth }, { access_token: token });
    expect(withBody.statusCode).not.toBe(401);
    expect(withBody.statusCode).toBeLessThan(500);
  });

  it('answers 401 when the secret part is wrong for a real token id', async () => {
    const [id] = token.split('|');
    const res = await get('/api/v2/enterprises', { authorization: `Bearer ${id}|${'b'.repeat(48)}` });
    expect(res.statusCode).toBe(401);
  });

  it('checks the token before the enterprise header', async () => {
    const res = await get('/api/v2/users', {});
    expect(res.statusCode).toBe(401);
  });

  it.each([
    ['v2', 'The X-Enterprise-Id header is required.'],
    ['v1', 'The EnterpriseID header is required.'],
  ] as const)('%s: a missing enterprise header is 403 naming the header', async (version, message) => {
    const res = await get(`/api/${version}/users`, apiHeaders(version, token));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ message });
  });

  it('reads each version its own header name only', async () => {
    const v2WithV1Header = await get('/api/v2/users', {
      ...apiHeaders('v2', token),
      EnterpriseID: tenant.enterpriseId,
    });
    expect(v2WithV1Header.json()).toEqual({ message: 'The X-Enterprise-Id header is required.' });
    const v1WithV2Header = await get('/api/v1/users', {
      ...apiHeaders('v1', token),
      'X-Enterprise-Id': tenant.enterpriseId,
    });
    expect(v1WithV2Header.json()).toEqual({ message: 'The EnterpriseID header is required.' });
  });

  it.each([
    ['not a UUID', 'acme'],
    ['an enterprise the caller is not a member of', 'other'],
    ['an enterprise that does not exist', '00000000-0000-4000-8000-00000000dead'],
  ])('the header naming %s is 403 Forbidden.', async (_name, value) => {
    const enterprise = value === 'other' ? tenant.otherEnterpriseId : value;
    for (const version of ['v1', 'v2'] as const) {
      const res = await get(`/api/${version}/users`, apiHeaders(version, token, enterprise));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Forbidden.' });
    }
  });

  it('accepts the header in upper case letters', async () => {
    const res = await get('/api/v2/users', apiHeaders('v2', token, tenant.enterpriseId.toUpperCase()));
    expect(res.statusCode).toBe(200);
  });

  it('rejects the tokens of a user made inactive', async () => {
    const fixture = tenantDocument();
    await importFixture(t, fixture.doc);
    const userToken = await loginToken(t.app, fixture.tenant.user.email, fixture.tenant.user.password);
    expect((await get('/api/v2/enterprises', apiHeaders('v2', userToken))).statusCode).toBe(200);
    await importFixture(t, {
      users: [{ id: fixture.tenant.user.id, name: 'Ann Broker', email: fixture.tenant.user.email, is_active: false }],
    });
    const res = await get('/api/v2/enterprises', apiHeaders('v2', userToken));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ message: 'Unauthenticated.' });
  });

  it('rejects every token issued before `user:password` changed the password', async () => {
    const fixture = tenantDocument();
    await importFixture(t, fixture.doc);
    const first = await loginToken(t.app, fixture.tenant.user.email, fixture.tenant.user.password);
    const second = await loginToken(t.app, fixture.tenant.user.email, fixture.tenant.user.password);
    const run = await runCli(
      ['user:password', '--email', fixture.tenant.user.email, '--password', 'a-brand-new-password'],
      { env: { DATABASE_URL: t.database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY } },
    );
    expect(run.code).toBe(0);
    for (const old of [first, second]) {
      expect((await get('/api/v2/enterprises', apiHeaders('v2', old))).statusCode).toBe(401);
    }
    const fresh = await loginToken(t.app, fixture.tenant.user.email, 'a-brand-new-password');
    expect((await get('/api/v2/enterprises', apiHeaders('v2', fresh))).statusCode).toBe(200);
  });
});
