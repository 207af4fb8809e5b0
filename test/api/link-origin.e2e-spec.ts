import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.factory.js';
import { ErrorMessages } from '../../src/common/http/error-messages.js';
import { apiHeaders, importFixture, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { createTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

/** The lists whose answers carry links built from the request when APP_URL is unset. */
const LISTS = [
  ['v2', '/api/v2/people'],
  ['v1', '/api/v1/leads'],
  ['v2', '/api/v2/changes'],
] as const;

const BAD_HOSTS = ['"><script>alert(1)</script>', 'evil.example/path', 'a b', 'host:99999', 'user@host'];

describe('links built from the request: only a valid host and http or https', () => {
  let plain: TestApp;
  let proxied: NestFastifyApplication;
  let configured: NestFastifyApplication;
  const { doc, tenant } = tenantDocument();
  let token = '';

  beforeAll(async () => {
    plain = await createTestApp();
    await importFixture(plain, doc);
    token = await loginToken(plain.app, tenant.user.email, tenant.user.password);
    proxied = checkResponsesAgainstOpenApi(
      await createApp(testConfig(plain.database, { TRUST_PROXY: 'true' }), plain.database),
    );
    configured = checkResponsesAgainstOpenApi(
      await createApp(
        testConfig(plain.database, { TRUST_PROXY: 'true', APP_URL: 'https://api.example.com' }),
        plain.database,
      ),
    );
  });
  afterAll(async () => {
    await configured.close();
    await proxied.close();
    await plain.close();
  });

  const get = (app: NestFastifyApplication, version: 'v1' | 'v2', url: string, headers: Record<string, string>) =>
    app.inject({ method: 'GET', url, headers: { ...apiHeaders(version, token, tenant.enterpriseId), ...headers } });

  /** Every absolute link of an answer (pagination links, the change feed's next). */
  const links = (body: string): string[] =>
    [...body.matchAll(/"(https?:\/\/[^"]*|[a-z]+:\/\/[^"]*)"/g)].map((m) => m[1] ?? '');

  it.each(LISTS)('%s %s: builds links from a valid Host, with its port', async (version, url) => {
    const res = await get(plain.app, version, url, { host: 'crm-gateway.internal:8080' });
    expect(res.statusCode).toBe(200);
    const found = links(res.body);
    expect(found.length).toBeGreaterThan(0);
    for (const link of found) expect(link.startsWith(`http://crm-gateway.internal:8080${url}`)).toBe(true);
  });

  it.each(LISTS.flatMap(([version, url]) => BAD_HOSTS.map((host) => [version, url, host] as const)))(
    '%s %s: answers 400 for the Host %j',
    async (version, url, host) => {
      const res = await get(plain.app, version, url, { host });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: ErrorMessages.invalidHost });
    },
  );

  it.each(LISTS)(
    '%s %s: with TRUST_PROXY, answers 400 for X-Forwarded-Proto other than http or https',
    async (version, url) => {
      for (const proto of ['javascript', 'https, javascript', 'data', 'ftp']) {
        const res = await get(proxied, version, url, { 'x-forwarded-proto': proto, host: 'api.example.net' });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toEqual({ message: ErrorMessages.invalidForwardedProto });
      }
      const https = await get(proxied, version, url, {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'api.example.net',
      });
      expect(https.statusCode).toBe(200);
      for (const link of links(https.body)) expect(link.startsWith(`https://api.example.net${url}`)).toBe(true);
      const badForwardedHost = await get(proxied, version, url, { 'x-forwarded-host': '"><script>' });
      expect(badForwardedHost.statusCode).toBe(400);
    },
  );

  it.each(LISTS)('%s %s: with APP_URL, the request names no part of the links', async (version, url) => {
    const res = await get(configured, version, url, { host: '"><script>', 'x-forwarded-proto': 'javascript' });
    expect(res.statusCode).toBe(200);
    for (const link of links(res.body)) expect(link.startsWith(`https://api.example.com${url}`)).toBe(true);
  });
});
