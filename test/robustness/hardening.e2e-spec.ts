import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import Fastify from 'fastify';
import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../../src/app.factory.js';
import { LARGE_BODIES_AT_ONCE, LARGE_BODY_BYTES } from '../../src/common/http/large-body-limit.js';
import { addSecurityHeaders } from '../../src/common/security/security-headers.js';
import { apiHeaders, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const JSON_CSP = "default-src 'none';frame-ancestors 'none'";

describe('hardening: headers, CORS, limits, timeouts', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token = '';
  let base = '';

  const suite = apiSuite();
  beforeAll(async () => {
    ({ t, tenant, token } = suite);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.getHttpServer().address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  it.each([
    ['a list', '/api/v2/users', true, 200],
    ['a 401', '/api/v1/leads', false, 401],
    ['a 404 route', '/api/v2/nothing', false, 404],
    ['the health check', '/health', false, 200],
    ['the liveness probe', '/health/live', false, 200],
    ['the readiness probe', '/health/ready', false, 200],
  ])('%s carries the security headers and no framework banner, over a real socket', async (_n, path, auth, status) => {
    const res = await fetch(`${base}${path}`, {
      headers: auth ? apiHeaders('v2', token, tenant.enterpriseId) : {},
    });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-security-policy')).toBe(JSON_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('server')).toBeNull();
    if (path.startsWith('/api/')) expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('sends no CORS headers when CORS_ORIGINS is unset, on a request or a preflight', async () => {
    const origin = 'https://evil.example.com';
    const get = await fetch(`${base}/api/v2/enterprises`, { headers: { ...apiHeaders('v2', token), origin } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${base}/api/v2/leads`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    expect(preflight.status).toBeGreaterThanOrEqual(400);
  });

  it.each([
    ['v2 leads', '/api/v2/leads', true],
    ['v1 leads', '/api/v1/leads', true],
    ['provider A webhook', '/api/webhooks/signprovider-a', false],
  ])('refuses a body over 1 MiB on %s with 413 {message}', async (_n, url, auth) => {
    const res = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json', ...(auth ? apiHeaders('v2', token, tenant.enterpriseId) : {}) },
      payload: JSON.stringify({ title: 'x'.repeat(1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ message: 'The request body is larger than 1 MiB.' });
  });

  it('bounds how long a client may take to send a request and how long an idle connection stays', () => {
    const server = t.app.getHttpServer();
    expect(server.requestTimeout).toBe(REQUEST_TIMEOUT_MS);
    expect(server.headersTimeout).toBe(HEADERS_TIMEOUT_MS);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(HEADERS_TIMEOUT_MS).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS);
  });

  it('v2 key normalisation: 64 levels pass, 65 are a 400, and 100,000 levels do not overflow the stack', async () => {
    const headers = { ...apiHeaders('v2', token, tenant.enterpriseId), 'content-type': 'application/json' };
    const nested = (levels: number) => `${'{"A":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    const post = (extra: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers,
        payload: `{"Title":"T","Person":"P","Extra":${extra}}`,
      });
    expect((await post(nested(63))).statusCode).toBe(201);
    const tooDeep = await post(nested(64));
    expect(tooDeep.statusCode).toBe(400);
    expect(tooDeep.json()).toEqual({
      message: 'The request body is nested too deeply: at most 64 levels of objects and arrays are allowed.',
    });
    const huge = await post(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(huge.statusCode).toBe(400);
  });
});

describe('CORS when CORS_ORIGINS is set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ CORS_ORIGINS: 'https://crm.example.com, http://localhost:8080' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers a preflight from a listed origin with the API headers allowed', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v2/leads',
      headers: {
        origin: 'https://crm.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,x-enterprise-id,content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://crm.example.com');
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/X-Enterprise-Id/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('exposes the rate-limit headers to a listed origin, and gives nothing to another one', async () => {
    const listed = await t.app.inject({ method: 'GET', url: '/health', headers: { origin: 'http://localhost:8080' } });
    expect(listed.headers['access-control-allow-origin']).toBe('http://localhost:8080');
    expect(String(listed.headers['access-control-expose-headers'])).toMatch(/X-RateLimit-Remaining/);
    const other = await t.app.inject({
      method: 'GET',
      url: '/health',
      headers: { origin: 'https://evil.example.com' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('security headers of pages outside the JSON API', () => {
  it('gives an HTML route (such as API docs) helmet’s default policy, and the API the strict one', async () => {
    const fastify = Fastify();
    addSecurityHeaders(fastify);
    fastify.get('/docs', (_req, reply) => reply.type('text/html').send('<html></html>'));
    fastify.get('/api/v2/things', () => ({ data: [] }));
    const page = await fastify.inject({ method: 'GET', url: '/docs' });
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    expect(page.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
    // Nothing of the service is meant to be framed, its pages included.
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    const api = await fastify.inject({ method: 'GET', url: '/api/v2/things' });
    expect(api.headers['content-security-policy']).toBe(JSON_CSP);
    await fastify.close();
  });
});

describe('inputs the fuzz suite found answering 500 (now 4xx)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token = '';
  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  it('an unpaired surrogate as a lead email is a 400 naming the field', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers: { ...apiHeaders('v2', token, tenant.enterpriseId), 'content-type': 'application/json' },
      payload: '{"title":"T","person":"P","email":"\\ud800"}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ errors: Record<string, string[]> }>().errors.email).toContain(
      'The email field must be a valid email address.',
    );
  });

  it('an unpaired surrogate as the login email is a 422', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v2/login',
      headers: { 'content-type': 'application/json' },
      payload: '{"email":"a\\ud800@example.com","password":"x"}',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      message: 'The email field must be a valid email address.',
      errors: { email: ['The email field must be a valid email address.'] },
    });
  });

  it('a QUERY request without a Content-Type is a 415', async () => {
    const res = await t.app.inject({ method: 'QUERY' as 'GET', url: '/api/v2/register' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ message: 'The request body must be JSON (Content-Type: application/json).' });
  });

  it('a path that cannot be percent-decoded is the JSON 404 of an unknown route, not Fastify’s own body', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/leads/%',
      headers: { ...apiHeaders('v1', token, tenant.enterpriseId), 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ message: 'The route /api/v1/leads/% could not be found.' });
    // Answered before any hook: the security headers are set there too.
    expect(res.headers['content-security-policy']).toBe(JSON_CSP);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('an id longer than the router’s default 100 characters is the 404 of a record that does not exist', async () => {
    const id = 'a'.repeat(5_000);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v2/leads/${id}`,
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(404);
    expect(res.json<{ message: string }>().message).toMatch(/^No query results for model \[/);
  });

  it('a trailing slash names the same route (it was a 405 listing the very method used)', async () => {
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    const plain = await t.app.inject({ method: 'GET', url: '/api/v2/people', headers });
    const slashed = await t.app.inject({ method: 'GET', url: '/api/v2/people/', headers });
    expect(slashed.statusCode).toBe(200);
    expect(slashed.json()).toEqual(plain.json());
    expect((await t.app.inject({ method: 'GET', url: '/health/' })).statusCode).toBe(200);
    // An empty id is no route at all, for the router and for the 405 registry alike.
    for (const method of ['GET', 'PATCH'] as const) {
      const empty = await t.app.inject({ method, url: '/api/v2/leads//', headers });
      expect(empty.statusCode).toBe(404);
      expect(empty.json()).toEqual({ message: 'The route /api/v2/leads// could not be found.' });
    }
  });
});

describe('large bodies at once (the heap is capped)', () => {
  let t: TestApp;
  let port = 0;
  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.getHttpServer().address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(async () => {
    await t.close();
  });

  /**
   * Sends the headers of a login body over 256 KiB (or of unknown size: chunked) and its first
   * bytes, then waits.
   */
  function startUpload(chunked = false): Promise<{ socket: Socket; answer: Promise<string> }> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        const size = chunked
          ? 'Transfer-Encoding: chunked\r\n\r\n9\r\n{"email":"\r\n'
          : `Content-Length: ${LARGE_BODY_BYTES + 50_000}\r\n\r\n{"email":"`;
        socket.write(`POST /api/v2/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${size}`);
        let received = '';
        const answer = new Promise<string>((done) => {
          socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
          socket.on('close', () => done(received));
        });
        resolve({ socket, answer });
      });
      socket.on('error', reject);
    });
  }

  it(`reads ${LARGE_BODIES_AT_ONCE} large bodies at once and answers the next (chunked) one 503 before reading it`, async () => {
    const uploads = await Promise.all(Array.from({ length: LARGE_BODIES_AT_ONCE }, () => startUpload()));
    await new Promise((r) => setTimeout(r, 200));
    const refused = await startUpload(true);
    const answer = await refused.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(answer.toLowerCase()).toContain('retry-after: 5');
    expect(answer.toLowerCase()).toContain(`content-security-policy: ${JSON_CSP}`);
    expect(answer).toContain('{"message":"The service is temporarily unavailable."}');

    // An aborted upload frees its place: a large body is read again (and refused as too large).
    for (const { socket } of uploads) socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const res = await fetch(`http://127.0.0.1:${port}/api/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"email":"${'a'.repeat(1_100_000)}"}`,
    });
    expect(res.status).toBe(413);
    // Small bodies are never counted.
    const small = await fetch(`http://127.0.0.1:${port}/api/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":"nobody@example.com","password":"x"}',
    });
    expect(small.status).toBe(401);
  });
});
