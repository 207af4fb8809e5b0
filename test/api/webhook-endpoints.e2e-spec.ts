import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { metricsOf } from '../../src/app.factory.js';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { WebhookDeliveryWorker } from '../../src/webhook-endpoints/webhook-delivery.worker.js';
import { WebhookResolver } from '../../src/webhook-endpoints/webhook-resolver.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { createTestApp, TEST_APP_KEY, type TestApp } from '../helpers/test-app.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * Managing webhook endpoints (v2), with private addresses refused as in production: the shapes,
 * 403/404, the 422 validation shape, and the address check when saving and when connecting.
 */
describe('webhook endpoints (management, private addresses refused)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let headers: Record<string, string>;
  let outsiderHeaders: Record<string, string>;
  /** Public addresses for the names the tests use, until a test rebinds one. */
  const dns = new Map<string, string>([['hooks.example.test', '93.184.216.34']]);

  beforeAll(async () => {
    t = await createTestApp({ METRICS_PORT: '9999' });
    t.app.get(WebhookResolver).use((host) => {
      const address = dns.get(host);
      if (!address) {
        return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
      }
      return Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]);
    });
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    headers = apiHeaders('v2', await loginToken(t.app, tenant.user.email, tenant.user.password), tenant.enterpriseId);
    outsiderHeaders = apiHeaders(
      'v2',
      await loginToken(t.app, tenant.outsider.email, tenant.outsider.password),
      tenant.otherEnterpriseId,
    );
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (payload: unknown, as = headers) =>
    t.app.inject({ method: 'POST', url: '/api/v2/webhook-endpoints', headers: as, payload: payload as object });

  it('creates an endpoint and shows its secret once', async () => {
    const res = await create({ url: 'https://hooks.example.test/in', types: ['person', 'lead'], description: 'CRM' });
    expect(res.statusCode).toBe(201);
    const { data } = res.json<{ data: Record<string, unknown> }>();
    expect(Object.keys(data)).toEqual([
      'id',
      'url',
      'types',
      'description',
      'enabled',
      'disabled_reason',
      'failures',
      'failing_since',
      'next_attempt_at',
      'last_error',
      'last_status_code',
      'created_by',
      'created_at',
      'updated_at',
      'secret',
    ]);
    expect(data).toMatchObject({
      url: 'https://hooks.example.test/in',
      types: ['person', 'lead'],
      description: 'CRM',
      enabled: true,
      disabled_reason: null,
      failures: 0,
      failing_since: null,
      next_attempt_at: null,
      last_error: null,
      last_status_code: null,
      // The enterprise owns it; the record says who created it.
      created_by: tenant.user.id,
    });
    expect(data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(String(data.secret).slice(6), 'base64')).toHaveLength(32);
    const [stored] = await t.dataSource.query<{ secret_encrypted: string }[]>(
      `SELECT secret_encrypted FROM webhook_endpoints WHERE id = $1`,
      [data.id],
    );
    expect(stored?.secret_encrypted).toMatch(/^enc:v1:/);
    expect(stored?.secret_encrypted).not.toContain(String(data.secret).slice(6));
    expect(t.cipher.decrypt(stored?.secret_encrypted ?? '')).toBe(data.secret);

    const one = await t.app.inject({ method: 'GET', url: `/api/v2/webhook-endpoints/${String(data.id)}`, headers });
    expect(one.statusCode).toBe(200);
    expect(one.json<{ data: Record<string, unknown> }>().data).toEqual({ ...data, secret: undefined });
    expect(Object.keys(one.json<{ data: object }>().data)).not.toContain('secret');
  });

  it('lists endpoints a page at a time, newest first, with every type as an empty list', async () => {
    const made = await create({ url: 'https://hooks.example.test/all' });
    expect(made.json<{ data: { types: string[] } }>().data.types).toEqual([]);
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/webhook-endpoints', headers });
    expect(res.statusCode).toBe(200);
    const page = res.json<{ data: { url: string; secret?: string }[]; meta: { total: number; per_page: number } }>();
    expect(page.data[0]?.url).toBe('https://hooks.example.test/all');
    expect(page.data.every((e) => e.secret === undefined)).toBe(true);
    expect(page.meta).toMatchObject({ total: page.data.length, per_page: 100 });
  });

  it('updates, disables and deletes an endpoint', async () => {
    const id = (await create({ url: 'https://hooks.example.test/a' })).json<{ data: { id: string } }>().data.id;
    const url = `/api/v2/webhook-endpoints/${id}`;
    const patched = await t.app.inject({
      method: 'PATCH',
      url,
      headers,
      payload: { URL: 'https://hooks.example.test/b', types: ['quote'], enabled: false, description: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json<{ data: object }>().data).toMatchObject({
      url: 'https://hooks.example.test/b',
      types: ['quote'],
      enabled: false,
      description: null,
    });
    const removed = await t.app.inject({ method: 'DELETE', url, headers });
    expect(removed.statusCode).toBe(204);
    expect(removed.body).toBe('');
    expect((await t.app.inject({ method: 'GET', url, headers })).statusCode).toBe(404);
  });

  it('answers 403 for an endpoint of another enterprise and 404 for an unknown or malformed id', async () => {
    const theirs = (await create({ url: 'https://hooks.example.test/theirs' }, outsiderHeaders)).json<{
      data: { id: string };
    }>().data.id;
    for (const [method, suffix] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate-secret'],
      ['GET', '/deliveries'],
      ['POST', '/replay'],
    ] as const) {
      const payload = method === 'GET' || method === 'DELETE' ? undefined : {};
      const foreign = await t.app.inject({
        method,
        url: `/api/v2/webhook-endpoints/${theirs}${suffix}`,
        headers,
        payload,
      });
      expect([method, suffix, foreign.statusCode, foreign.json()]).toEqual([
        method,
        suffix,
        403,
        { message: 'Forbidden.' },
      ]);
      const unknown = randomUUID();
      const missing = await t.app.inject({
        method,
        url: `/api/v2/webhook-endpoints/${unknown}${suffix}`,
        headers,
        payload,
      });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ message: `No query results for model [WebhookEndpoint] ${unknown}` });
      const malformed = await t.app.inject({
        method,
        url: `/api/v2/webhook-endpoints/nope${suffix}`,
        headers,
        payload,
      });
      expect(malformed.statusCode).toBe(404);
    }
    const [row] = await t.dataSource.query<{ url: string }[]>(`SELECT url FROM webhook_endpoints WHERE id = $1`, [
      theirs,
    ]);
    expect(row?.url).toBe('https://hooks.example.test/theirs');
  });

  it('is not a v1 route', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/webhook-endpoints',
      headers: apiHeaders('v1', '', ''),
    });
    expect(res.statusCode).toBe(404);
  });

  it.each([
    ['no url', {}, { url: ['The url field is required.'] }],
    ['a url that is not a string', { url: 42 }, { url: ['The url field must be a string.'] }],
    ['a url that is not a URL', { url: 'not a url' }, { url: ['The url field must be a valid URL.'] }],
    ['an http url', { url: 'http://hooks.example.test/in' }, { url: ['The url field must be an https URL.'] }],
    ['an ftp url', { url: 'ftp://hooks.example.test/in' }, { url: ['The url field must be an https URL.'] }],
    [
      'a url with credentials',
      { url: 'https://user:pw@hooks.example.test/in' },
      { url: ['The url field must not contain a user name or password.'] },
    ],
    [
      'a url over 2048 characters',
      { url: `https://hooks.example.test/${'a'.repeat(2048)}` },
      { url: ['The url field must not be greater than 2048 characters.'] },
    ],
    [
      'a url whose host does not resolve',
      { url: 'https://unknown.example.test/' },
      { url: ['The url host could not be resolved.'] },
    ],
    [
      'types that are not an array',
      { url: 'https://hooks.example.test/', types: 'lead' },
      {
        types: [`The types field must be an array of record types: ${CHANGE_TYPES.join(', ')}.`],
      },
    ],
    [
      'an unknown type',
      { url: 'https://hooks.example.test/', types: ['lead', 'note'] },
      {
        types: [`The types field must be an array of record types: ${CHANGE_TYPES.join(', ')}.`],
      },
    ],
    [
      'a description that is not a string',
      { url: 'https://hooks.example.test/', description: 7 },
      { description: ['The description field must be a string.'] },
    ],
    [
      'a url with a tab and a line break in it',
      { url: 'https://hooks.example.test/a\tb\nforged' },
      { url: ['The url field must not contain control characters.'] },
    ],
    [
      'a url with an escape sequence',
      { url: 'https://hooks.example.test/\u001b[31m' },
      { url: ['The url field must not contain control characters.'] },
    ],
    [
      'a description with an escape sequence',
      { url: 'https://hooks.example.test/', description: 'CRM \u001b[2J' },
      { description: ['The description field must not contain control characters.'] },
    ],
    [
      'a description with a line break',
      { url: 'https://hooks.example.test/', description: 'two\nlines' },
      { description: ['The description field must not contain control characters.'] },
    ],
    [
      'a description over 1000 characters',
      { url: 'https://hooks.example.test/', description: 'x'.repeat(1001) },
      { description: ['The description field must not be greater than 1000 characters.'] },
    ],
  ])('refuses %s with 422 and the messages of each field', async (_label, payload, errors) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(422);
    const first = Object.values(errors)[0]?.[0];
    expect(res.json()).toEqual({ message: first, errors });
  });

  it('refuses a bad PATCH with 422 and changes nothing', async () => {
    const id = (await create({ url: 'https://hooks.example.test/p' })).json<{ data: { id: string } }>().data.id;
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/v2/webhook-endpoints/${id}`,
      headers,
      payload: { enabled: 'yes', url: 'http://hooks.example.test/' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      message: 'The url field must be an https URL. (and 1 more error)',
      errors: { url: ['The url field must be an https URL.'], enabled: ['The enabled field must be true or false.'] },
    });
  });

  const PRIVATE = [
    '127.0.0.1',
    '127.9.9.9',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '[::1]',
    '[::]',
    '[fe80::1]',
    '[fc00::1]',
    '[fd12:3456::1]',
    '[ff02::1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:10.0.0.1]',
    // IPv4-compatible, NAT64, 6to4 and Teredo forms of internal IPv4 addresses.
    '[::7f00:1]',
    '[::a9fe:a9fe]',
    '[::a00:1]',
    '[64:ff9b::a00:1]',
    '[64:ff9b:1::7f00:1]',
    '[2002:a00:1::1]',
    '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
  ];

  it.each(PRIVATE)('refuses to save a URL whose host is %s', async (host) => {
    const res = await create({ url: `https://${host}/in` });
    expect(res.statusCode).toBe(422);
    expect(res.json<{ errors: object }>().errors).toEqual({
      url: ['The url field must not point to a loopback, private, link-local, multicast or unspecified address.'],
    });
  });

  it.each(PRIVATE.map((host) => host.replace(/^\[|\]$/g, '')))(
    'refuses to save a URL whose name resolves to %s',
    async (address) => {
      dns.set('inside.example.test', address);
      const res = await create({ url: 'https://inside.example.test/in' });
      expect(res.statusCode).toBe(422);
      expect(res.json<{ errors: { url: string[] } }>().errors.url[0]).toMatch(/must not point to a loopback/);
    },
  );

  it('refuses at connect time a name that resolves to a private address after it was saved', async () => {
    const receiver = new WebhookReceiver();
    await receiver.start();
    try {
      dns.set('rebind.example.test', '93.184.216.34');
      const made = await create({ url: `https://rebind.example.test:${receiver.port}/in`, types: ['lead'] });
      expect(made.statusCode).toBe(201);
      const id = made.json<{ data: { id: string } }>().data.id;
      dns.set('rebind.example.test', '127.0.0.1');
      const worker = t.app.get(WebhookDeliveryWorker);
      worker.start();
      try {
        const lead = await t.app.inject({
          method: 'POST',
          url: '/api/v2/leads',
          headers,
          payload: { title: 'Rebound', person_name: 'Rex' },
        });
        expect(lead.statusCode).toBe(201);
        let attempts: { error: string | null; status_code: number | null }[] = [];
        for (let i = 0; i < 100 && attempts.length === 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const res = await t.app.inject({ method: 'GET', url: `/api/v2/webhook-endpoints/${id}/deliveries`, headers });
          attempts = res.json<{ data: typeof attempts }>().data;
        }
        expect(attempts[0]).toMatchObject({ status_code: null });
        expect(attempts[0]?.error).toMatch(/rebind\.example\.test resolves to an address webhooks may not be sent to/);
        expect(receiver.received).toHaveLength(0);
        const metrics = await metricsOf(t.app)?.registry.metrics();
        expect(metrics).toMatch(/finance_intake_outbound_webhook_deliveries_total\{outcome="refused_address"\} [1-9]/);
        expect(metrics).toMatch(
          /finance_intake_outbound_webhook_oldest_undelivered_seconds\{endpoint="[0-9a-f-]{36}"\}/,
        );
        expect(metrics).toContain('finance_intake_outbound_webhook_attempt_duration_seconds_bucket');
        expect(metrics).toContain('finance_intake_outbound_webhook_delivery_latency_seconds_bucket');
      } finally {
        await worker.stop();
      }
    } finally {
      await receiver.stop();
    }
  });

  it('pauses, without sending anything, an endpoint saved as http: while private URLs were allowed', async () => {
    const receiver = new WebhookReceiver();
    const base = await receiver.start();
    dns.set('plain.example.test', '93.184.216.34');
    const made = await create({ url: 'https://plain.example.test/in', types: ['lead'] });
    expect(made.statusCode).toBe(201);
    const id = made.json<{ data: { id: string } }>().data.id;
    // As a development process with WEBHOOK_ALLOW_PRIVATE_URLS=true saved it.
    await t.dataSource.query(`UPDATE webhook_endpoints SET url = $2 WHERE id = $1`, [id, `${base}/in`]);
    const worker = t.app.get(WebhookDeliveryWorker);
    worker.start();
    try {
      const lead = await t.app.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers,
        payload: { title: 'Not in clear', person_name: 'Rex' },
      });
      expect(lead.statusCode).toBe(201);
      let endpoint: { enabled: boolean; disabled_reason: string | null } = { enabled: true, disabled_reason: null };
      for (let i = 0; i < 100 && endpoint.enabled; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const res = await t.app.inject({ method: 'GET', url: `/api/v2/webhook-endpoints/${id}`, headers });
        endpoint = res.json<{ data: typeof endpoint }>().data;
      }
      expect(endpoint).toMatchObject({
        enabled: false,
        disabled_reason:
          'The url is http:, which this service delivers to only in local development: change it to an https URL to resume.',
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      await worker.stop();
      await receiver.stop();
      await t.dataSource.query(`DELETE FROM webhook_endpoints WHERE id = $1`, [id]);
    }
  });

  it('lists endpoints for operators with webhook:list, with the lag of each', async () => {
    await create({ url: 'https://hooks.example.test/listed' });
    await create({ url: 'https://hooks.example.test/theirs-listed' }, outsiderHeaders);
    const env = { DATABASE_URL: t.database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
    const mine = await runCli(['webhook:list', '--enterprise', tenant.enterpriseId], { env });
    expect(mine.code).toBe(0);
    const [header, ...lines] = mine.stdout.trimEnd().split('\n');
    expect(header).toBe('id\tenterprise\turl\tenabled\tlag');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).toMatch(/^[0-9a-f-]{36}\t[0-9a-f-]{36}\thttps:\/\/\S+\t(yes|no)\t\d+s$/);
      expect(line.split('\t')[1]).toBe(tenant.enterpriseId);
    }
    const all = await runCli(['webhook:list'], { env });
    expect(all.stdout).toContain(tenant.otherEnterpriseId);
    const none = await runCli(['webhook:list', '--enterprise', randomUUID()], { env });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/No enterprise with the id/);
  });

  it('prints control characters of an endpoint saved before they were refused escaped in webhook:list', async () => {
    const made = await create({ url: 'https://hooks.example.test/old' });
    const id = made.json<{ data: { id: string } }>().data.id;
    await t.dataSource.query(`UPDATE webhook_endpoints SET url = $1 WHERE id = $2`, [
      'https://hooks.example.test/a\tb\nforged\u001b[31m',
      id,
    ]);
    const env = { DATABASE_URL: t.database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
    const listed = await runCli(['webhook:list', '--enterprise', tenant.enterpriseId], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('\u001b');
    const line = listed.stdout.split('\n').find((row) => row.startsWith(id));
    expect(line?.split('\t')).toEqual([
      id,
      tenant.enterpriseId,
      'https://hooks.example.test/a\\tb\\nforged\\u001b[31m',
      'yes',
      expect.stringMatching(/^\d+s$/),
    ]);
  });

  describe('Idempotency-Key on create', () => {
    const endpointsOf = async () =>
      Number(
        (
          await t.dataSource.query<{ n: string }[]>(
            `SELECT count(*) AS n FROM webhook_endpoints WHERE enterprise_id = $1`,
            [tenant.enterpriseId],
          )
        )[0]?.n,
      );

    it('makes one endpoint for a repeated request, answering the first answer (same id, same secret) again', async () => {
      const before = await endpointsOf();
      const key = randomUUID();
      const payload = { url: 'https://hooks.example.test/idempotent', types: ['lead'] };
      const first = await create(payload, { ...headers, 'idempotency-key': key });
      const again = await create(payload, { ...headers, 'idempotency-key': key });
      expect(first.statusCode).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
      expect(await endpointsOf()).toBe(before + 1);
      const other = await create({ ...payload, description: 'another body' }, { ...headers, 'idempotency-key': key });
      expect(other.statusCode).toBe(422);
      expect(await endpointsOf()).toBe(before + 1);
    });

    it('makes one endpoint for ten concurrent requests with the same key, all answering the same secret', async () => {
      const before = await endpointsOf();
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          create({ url: 'https://hooks.example.test/concurrent' }, { ...headers, 'idempotency-key': key }),
        ),
      );
      expect(answers.map((res) => res.statusCode)).toEqual(Array(10).fill(201));
      const secrets = new Set(answers.map((res) => res.json<{ data: { id: string; secret: string } }>().data.secret));
      const ids = new Set(answers.map((res) => res.json<{ data: { id: string } }>().data.id));
      expect({ ids: ids.size, secrets: secrets.size }).toEqual({ ids: 1, secrets: 1 });
      expect(await endpointsOf()).toBe(before + 1);
    });

    it('never keeps the secret in clear in the remembered answer', async () => {
      const key = randomUUID();
      const made = await create(
        { url: 'https://hooks.example.test/secret-kept' },
        { ...headers, 'idempotency-key': key },
      );
      const { secret } = made.json<{ data: { secret: string } }>().data;
      expect(secret).toMatch(/^whsec_/);
      const stored = await t.dataSource.query<{ body: string }[]>(
        `SELECT response_body::text AS body FROM idempotency_keys WHERE key = $1`,
        [key],
      );
      expect(stored).toHaveLength(1);
      expect(stored[0]?.body).not.toContain(secret);
      expect(stored[0]?.body).not.toContain(secret.replace(/^whsec_/, ''));
    });
  });

  describe('Idempotency-Key on rotate-secret and replay', () => {
    async function endpoint(): Promise<{ id: string; secret: string }> {
      const made = await create({ url: `https://hooks.example.test/${randomUUID()}` });
      expect(made.statusCode).toBe(201);
      return made.json<{ data: { id: string; secret: string } }>().data;
    }
    const post = (id: string, action: string, key: string, payload?: object) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v2/webhook-endpoints/${id}/${action}`,
        headers: { ...headers, 'idempotency-key': key },
        ...(payload ? { payload } : {}),
      });
    const stored = async (id: string) =>
      (
        await t.dataSource.query<{ generation: number; previous: string | null; current: string }[]>(
          `SELECT generation, previous_secret_encrypted AS previous, secret_encrypted AS current
             FROM webhook_endpoints WHERE id = $1`,
          [id],
        )
      )[0];

    it('rotates once for a repeated or concurrent request, answering the same new secret, kept encrypted', async () => {
      const { id } = await endpoint();
      const key = randomUUID();
      const answers = await Promise.all(Array.from({ length: 5 }, () => post(id, 'rotate-secret', key)));
      expect(answers.map((res) => res.statusCode)).toEqual(Array(5).fill(200));
      const secrets = new Set(answers.map((res) => res.json<{ data: { secret: string } }>().data.secret));
      expect(secrets.size).toBe(1);
      const again = await post(id, 'rotate-secret', key);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(answers[0]?.json());
      // One rotation: the secret the endpoint was made with is still the previous one.
      const row = await stored(id);
      const [secret] = [...secrets];
      expect(t.cipher.decrypt(row?.current ?? '')).toBe(secret);
      const remembered = await t.dataSource.query<{ body: string }[]>(
        `SELECT response_body::text AS body FROM idempotency_keys WHERE key = $1`,
        [key],
      );
      expect(remembered[0]?.body).not.toContain(secret);
      const rotations = await t.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM webhook_endpoints WHERE id = $1 AND previous_secret_encrypted IS NOT NULL`,
        [id],
      );
      expect(rotations[0]?.n).toBe(1);
    });

    it('replays once for a repeated request with the same key', async () => {
      const { id } = await endpoint();
      const before = (await stored(id))?.generation ?? 0;
      const key = randomUUID();
      const first = await post(id, 'replay', key, { from_beginning: true });
      const again = await post(id, 'replay', key, { from_beginning: true });
      expect([first.statusCode, again.statusCode]).toEqual([202, 202]);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect((await stored(id))?.generation).toBe(before + 1);
      const other = await post(id, 'replay', key, { cursor: 'q0vB3kF1c2Vy' });
      expect(other.statusCode).toBe(422);
      expect((await stored(id))?.generation).toBe(before + 1);
    });
  });
});
