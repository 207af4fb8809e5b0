import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ClientErrorMessages } from '../../src/common/http/client-error-answer.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const JSON_CSP = "default-src 'none';frame-ancestors 'none'";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes raw bytes on a new connection and reads the answer until the server closes it. */
function rawRequest(port: number, bytes: string): Promise<RawAnswer> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', fail);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      done({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(bytes);
  });
}

/** The headers every error answer of the JSON API has (the rate-limit ones aside). */
function expectUsualHeaders(headers: Record<string, string | string[] | number | undefined>): void {
  expect(headers['x-request-id']).toMatch(UUID);
  expect(headers['content-security-policy']).toBe(JSON_CSP);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['cache-control']).toBe('no-store');
  expect(headers['content-type']).toBe('application/json; charset=utf-8');
}

/** What the served documents and the API guide say about the rate-limit headers. */
function expectDocumentedWithoutRateLimit(description: string, status: number): void {
  const statement = /Answered before the request is counted, so without them:([^]*?)\n- /.exec(
    `${description}\n- `,
  )?.[1];
  expect(statement?.replace(/\s+/g, ' ')).toMatch(new RegExp(`\\((\\d+, )*${status}(, \\d+)*\\)`));
}

describe('edge answers have the service’s headers and a message', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token = '';
  let port = 0;
  let description = '';

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.getHttpServer().address();
    port = typeof address === 'object' && address ? address.port : 0;
    const doc = await t.app.inject({ method: 'GET', url: '/api/v2/openapi.json' });
    description = doc.json<{ info: { description: string } }>().info.description;
  });
  afterAll(async () => {
    await t.close();
  });

  it('headers over 16 KiB: 431 with the usual headers and a message, not Node’s body', async () => {
    const answer = await rawRequest(
      port,
      `GET /api/v2/users HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    expect(answer.status).toBe(431);
    expectUsualHeaders(answer.headers);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({ message: ClientErrorMessages.headersTooLarge });
    expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    expectDocumentedWithoutRateLimit(description, 431);
  });

  it.each([
    ['a NUL', 'a\0b'],
    ['a bare CR', 'a\rb'],
  ])('a header with %s: 400 with the usual headers and a message, not Node’s bare 400', async (_name, value) => {
    const answer = await rawRequest(port, `GET /api/v2/users HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Test: ${value}\r\n\r\n`);
    expect(answer.status).toBe(400);
    expectUsualHeaders(answer.headers);
    expect(JSON.parse(answer.body)).toEqual({ message: ClientErrorMessages.malformedRequest });
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  });

  it('a header name with a LF in it: the same 400', async () => {
    const answer = await rawRequest(port, `GET /api/v2/users HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Te\nst: a\r\n\r\n`);
    expect(answer.status).toBe(400);
    expectUsualHeaders(answer.headers);
    expect(JSON.parse(answer.body)).toEqual({ message: ClientErrorMessages.malformedRequest });
  });

  it.each([
    ['an unknown route', 'GET', '/api/v2/nothing', undefined, undefined, 404],
    ['a method the path does not have', 'DELETE', '/api/v2/leads', undefined, undefined, 405],
    ['a body over 1 MiB', 'POST', '/api/v2/leads', 'application/json', `{"a":"${'x'.repeat(1_100_000)}"}`, 413],
    ['a body that is not JSON', 'POST', '/api/v2/leads', 'text/plain', 'hello', 415],
    ['malformed JSON', 'POST', '/api/v2/leads', 'application/json', '{"a": ', 400],
  ] as const)('%s: %s %s has the usual headers and a message', async (_name, method, url, type, payload, status) => {
    const res = await t.app.inject({
      method,
      url,
      headers: { ...apiHeaders('v2', token, tenant.enterpriseId), ...(type ? { 'content-type': type } : {}) },
      ...(payload === undefined ? {} : { payload }),
    });
    expect(res.statusCode).toBe(status);
    expectUsualHeaders(res.headers);
    expect(Object.keys(res.json<object>())).toEqual(['message']);
    // Answered before the request was counted: no rate-limit headers, and the documents say so.
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    expectDocumentedWithoutRateLimit(description, status);
  });

  it('a counted answer carries the rate-limit headers, as the documents say every counted answer does', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/users',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
    expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
    expect(description).toContain('every answer of a counted request carries `X-RateLimit-Limit`');
  });
});
