import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseToken } from '../../src/auth/access-token.js';
import { apiHeaders, loginToken, type Tenant } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('X-Request-Id on every answer (default configuration)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;

  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  const requests = () =>
    [
      ['200 list', { method: 'GET', url: '/api/v2/leads', headers: apiHeaders('v2', token, tenant.enterpriseId) }],
      [
        '201 create',
        {
          method: 'POST',
          url: '/api/v1/leads',
          headers: apiHeaders('v1', token, tenant.enterpriseId),
          payload: { Title: 'Traced', PersonName: 'Tia' },
        },
      ],
      ['401 no token', { method: 'GET', url: '/api/v2/leads' }],
      ['403 no enterprise header', { method: 'GET', url: '/api/v2/leads', headers: apiHeaders('v2', token) }],
      ['404 unknown route', { method: 'GET', url: '/api/v2/nowhere' }],
      ['404 undecodable path', { method: 'GET', url: '/api/v1/leads/%' }],
      [
        '405 wrong method',
        { method: 'PATCH', url: '/api/v2/leads', headers: apiHeaders('v2', token, tenant.enterpriseId) },
      ],
      [
        '400 malformed JSON',
        {
          method: 'POST',
          url: '/api/v2/leads',
          headers: { ...apiHeaders('v2', token, tenant.enterpriseId), 'content-type': 'application/json' },
          payload: '{"title":',
        },
      ],
      ['200 health', { method: 'GET', url: '/health' }],
    ] as const;

  it('echoes a sane X-Request-Id the client sent, whatever the answer', async () => {
    for (const [what, request] of requests()) {
      const id = `crm-${what.replace(/\W+/g, '-')}.1_2`;
      const res = await t.app.inject({
        ...request,
        headers: { ...('headers' in request ? request.headers : {}), 'x-request-id': id },
      });
      expect([what, res.headers['x-request-id']]).toEqual([what, id]);
    }
  });

  it('gives every answer a generated id when the client sent none', async () => {
    const ids = new Set<string>();
    for (const [what, request] of requests()) {
      const res = await t.app.inject(request);
      const id = String(res.headers['x-request-id']);
      expect([what, UUID.test(id)]).toEqual([what, true]);
      ids.add(id);
    }
    expect(ids.size).toBe(requests().length);
  });

  it.each([
    ['4 KB long', 'a'.repeat(4096)],
    ['129 characters', 'b'.repeat(129)],
    ['control characters', 'evil\u0001id\u007f'],
    ['a line break and a header', 'x\r\nSet-Cookie: stolen=1'],
    ['spaces and quotes', 'id "with" spaces'],
    ['empty', ''],
  ])('replaces a hostile X-Request-Id (%s) with a generated one instead of echoing it', async (_, hostile) => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/leads', headers: { 'x-request-id': hostile } });
    expect(res.statusCode).toBe(401);
    expect(String(res.headers['x-request-id'])).toMatch(UUID);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('keeps login tokens valid for ever when TOKEN_LIFETIME_MINUTES is unset', async () => {
    const old = await loginToken(t.app, tenant.user.email, tenant.user.password);
    await t.dataSource.query(`UPDATE access_tokens SET created_at = now() - interval '10 years' WHERE id = $1`, [
      parseToken(old)?.id,
    ]);
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers: apiHeaders('v2', old) });
    expect(res.statusCode).toBe(200);
  });
});
