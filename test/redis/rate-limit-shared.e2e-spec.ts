import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { createApp } from '../../src/app.factory.js';
import { Clock } from '../../src/common/rate-limit/clock.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { createTestApp, testConfig, type TestApp } from '../helpers/test-app.js';

const LIMIT = 60;

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

describe('rate limit shared through Redis', () => {
  let redis: DisposableRedis;
  let first: TestApp;
  let second: NestFastifyApplication;
  let tenant: Tenant;
  let now = Date.parse('2026-06-01T00:00:00.000Z');

  beforeAll(async () => {
    redis = await DisposableRedis.start();
    const env = { RATE_LIMIT_PER_MINUTE: String(LIMIT), REDIS_URL: redis.url };
    first = await createTestApp(env);
    // A second instance of the service on the same database and the same Redis.
    second = checkResponsesAgainstOpenApi(await createApp(testConfig(first.database, env), first.database));
    for (const app of [first.app, second]) jest.spyOn(app.get(Clock), 'now').mockImplementation(() => now);
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(first, fixture.doc);
    await until(
      async () => (await first.app.inject({ method: 'GET', url: '/health' })).json<{ redis?: string }>().redis === 'up',
    );
  });
  afterAll(async () => {
    await second.close();
    await first.close();
    await redis.stop();
  });

  const health = async (app: NestFastifyApplication) =>
    (await app.inject({ method: 'GET', url: '/health' })).json<Record<string, string>>();

  it('two instances together allow exactly the limit for one user', async () => {
    const token = await loginToken(first.app, tenant.user.email, tenant.user.password);
    now += 61_000;
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 10; i++) {
      const app = i % 2 === 0 ? first.app : second;
      statuses.push((await app.inject({ method: 'GET', url: '/api/v2/users', headers })).statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual(Array(10).fill(429));
  });

  it('concurrent requests through both instances never exceed the limit', async () => {
    now += 61_000;
    const ip = '10.9.8.7';
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 === 0 ? first.app : second).inject({ method: 'POST', url: '/api/v2/register', remoteAddress: ip }),
      ),
    );
    expect(results.filter((r) => r.statusCode === 403)).toHaveLength(LIMIT);
    expect(results.filter((r) => r.statusCode === 429)).toHaveLength(100 - LIMIT);
  });

  it('keeps the budgets of deployments with different REDIS_KEY_PREFIX apart on one Redis', async () => {
    now += 61_000;
    // Another deployment (same Redis, its own prefix); the default prefix stays as it was.
    const other = await createApp(
      testConfig(first.database, {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: 'other-deployment:',
      }),
      first.database,
    );
    const client = new Redis(redis.url);
    try {
      jest.spyOn(other.get(Clock), 'now').mockImplementation(() => now);
      await until(
        async () => (await other.inject({ method: 'GET', url: '/health' })).json<{ redis?: string }>().redis === 'up',
      );
      const ip = '10.5.5.5';
      const register = (app: NestFastifyApplication) =>
        app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: ip });
      for (let i = 0; i < LIMIT; i++) expect((await register(first.app)).statusCode).toBe(403);
      expect((await register(first.app)).statusCode).toBe(429);
      // The same address has its whole budget in the other deployment.
      expect((await register(other)).statusCode).toBe(403);
      expect((await register(other)).headers['x-ratelimit-remaining']).toBe(String(LIMIT - 2));
      expect(await client.keys(`finance-intake:rate-limit:*${ip}*`)).toHaveLength(1);
      expect(await client.keys(`other-deployment:*${ip}*`)).toHaveLength(1);
    } finally {
      client.disconnect();
      await other.close();
    }
  });

  it('falls back per instance while Redis is down, shows it in /health, and shares again when it is back', async () => {
    now += 61_000;
    await redis.stop();
    await until(async () => (await health(first.app)).redis === 'down');
    expect(await health(first.app)).toEqual({ status: 'ok', database: 'up', redis: 'down' });

    // Each instance now holds the limit on its own: 60 through each, then 429.
    const ip = '10.1.2.3';
    for (const app of [first.app, second]) {
      for (let i = 0; i < LIMIT; i++) {
        expect((await app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: ip })).statusCode).toBe(403);
      }
      expect((await app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: ip })).statusCode).toBe(429);
    }

    await redis.resume();
    await until(async () => (await health(first.app)).redis === 'up' && (await health(second)).redis === 'up');
    now += 61_000;
    const shared = '10.3.2.1';
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 2; i++) {
      const app = i % 2 === 0 ? first.app : second;
      statuses.push((await app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: shared })).statusCode);
    }
    expect(statuses.filter((s) => s === 403)).toHaveLength(LIMIT);
    expect(statuses.slice(LIMIT)).toEqual([429, 429]);
  });
});
