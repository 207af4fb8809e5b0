import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, type Tenant } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

describe('error bodies', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;

  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  it.each(['/api/v2/nothing', '/api/v1/people-and-more', '/api/v3/users', '/elsewhere'])(
    'unknown route %s is 404 naming it',
    async (url) => {
      const res = await t.app.inject({ method: 'GET', url: `${url}?page=2` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: `The route ${url} could not be found.` });
    },
  );

  it.each([
    ['GET', '/api/v2/login', 'api/v2/login', 'POST'],
    ['PUT', '/api/v1/login', 'api/v1/login', 'POST'],
    ['POST', '/health', 'health', 'GET'],
  ] as const)('%s %s is 405 with Allow', async (method, url, route, allowed) => {
    const res = await t.app.inject({ method, url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe(allowed);
    expect(res.json()).toEqual({
      message: `The ${method} method is not supported for route ${route}. Supported methods: ${allowed}.`,
    });
  });

  it.each([
    ['malformed JSON', '{"email": ', 'application/json', 400, 'Malformed JSON in request body.'],
    ['an empty JSON body', '', 'application/json', 400, 'Malformed JSON in request body.'],
    ['a text body', 'email=a', 'text/plain', 415, 'The request body must be JSON (Content-Type: application/json).'],
    [
      'a form body',
      'email=a',
      'application/x-www-form-urlencoded',
      415,
      'The request body must be JSON (Content-Type: application/json).',
    ],
    [
      'a body over 1 MiB',
      JSON.stringify({ email: 'x'.repeat(1024 * 1024) }),
      'application/json',
      413,
      'The request body is larger than 1 MiB.',
    ],
  ])('%s is %i', async (_name, payload, contentType, status, message) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v2/login',
      payload,
      headers: { 'content-type': contentType },
    });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ message });
  });

  it('answers 500 Server Error with no internals when the database fails under a request', async () => {
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    await t.dataSource.query('ALTER TABLE users RENAME TO users_gone');
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/v2/users', headers });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ message: 'Server Error' });
      expect(res.body).not.toMatch(/users_gone|relation|SELECT|at /);
    } finally {
      await t.dataSource.query('ALTER TABLE users_gone RENAME TO users');
    }
  });
});
