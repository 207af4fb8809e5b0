import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { getStorageToken, SkipThrottle, Throttle, ThrottlerGuard } from '../../src/common/rate-limit/throttler.js';
import { ApiThrottlerGuard } from '../../src/common/rate-limit/api-throttler.guard.js';
import { Clock } from '../../src/common/rate-limit/clock.js';
import { RateLimitStorage } from '../../src/common/rate-limit/rate-limit.storage.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const LIMIT = 60;

describe('rate limit, in-process store', () => {
  let t: TestApp;
  let tenant: Tenant;
  let now: number;

  beforeAll(async () => {
    t = await createTestApp({ RATE_LIMIT_PER_MINUTE: String(LIMIT), SIGNPROVIDER_A_SECRET: 'rate-limit-secret' });
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    now = Date.parse('2026-06-01T00:00:00.000Z');
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => now);
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    // Each test starts in a fresh window for every key.
    now += 61_000;
  });

  /** A fresh IP per test, so budgets of earlier tests never leak in. */
  const freshIp = () =>
    `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

  async function freshToken(): Promise<string> {
    const token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    now += 61_000; // the login itself counted against the IP, not the user
    return token;
  }

  it('lets exactly 60 of 61 requests of one user through; the 61st is 429 with the reset time', async () => {
    const token = await freshToken();
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    const windowStart = now;
    for (let i = 1; i <= LIMIT; i++) {
      now = windowStart + i * 100;
      const res = await t.app.inject({ method: 'GET', url: '/api/v2/users', headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('60');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
      expect(res.headers['retry-after']).toBeUndefined();
    }
    now = windowStart + 20_500;
    const refused = await t.app.inject({ method: 'GET', url: '/api/v2/users', headers });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ message: 'Too Many Attempts.' });
    expect(refused.headers['x-ratelimit-limit']).toBe('60');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    // The window opened at windowStart + 100 ms and ends 60 s later: 39.6 s from now.
    expect(refused.headers['retry-after']).toBe('40');
    expect(refused.headers['x-ratelimit-reset']).toBe(String(Math.floor(now / 1000) + 40));
    const names = Object.keys(refused.headers).filter((h) => h.startsWith('x-ratelimit'));
    expect(names.sort()).toEqual(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
  });

  it('does not count refused requests, and the window resets after 60 seconds', async () => {
    const token = await freshToken();
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    for (let i = 0; i < LIMIT; i++) await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers });
    for (let i = 0; i < 5; i++) {
      expect((await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers })).statusCode).toBe(429);
    }
    now += 59_000;
    expect((await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers })).statusCode).toBe(429);
    now += 1_100;
    const res = await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('counts one budget per user across all routes and both versions', async () => {
    const token = await freshToken();
    const urls = ['/api/v2/users', '/api/v1/users', '/api/v2/enterprises', `/api/v2/users/${tenant.user.id}`];
    for (let i = 0; i < LIMIT; i++) {
      const url = urls[i % urls.length] ?? '/api/v2/users';
      const version = url.startsWith('/api/v1') ? 'v1' : 'v2';
      expect(
        (await t.app.inject({ method: 'GET', url, headers: apiHeaders(version, token, tenant.enterpriseId) }))
          .statusCode,
      ).toBe(200);
    }
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/enterprises', headers: apiHeaders('v1', token) });
    expect(res.statusCode).toBe(429);
  });

  it('gives two users separate budgets, and error answers carry the headers too', async () => {
    const fixture = tenantDocument();
    await importFixture(t, fixture.doc);
    const first = await freshToken();
    const second = await loginToken(t.app, fixture.tenant.user.email, fixture.tenant.user.password);
    now += 61_000;
    for (let i = 0; i < LIMIT; i++)
      await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers: apiHeaders('v2', first) });
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/v2/enterprises', headers: apiHeaders('v2', first) })).statusCode,
    ).toBe(429);
    const other = await t.app.inject({
      method: 'GET',
      url: '/api/v2/users',
      headers: apiHeaders('v2', second, tenant.enterpriseId),
    });
    expect(other.statusCode).toBe(403);
    expect(other.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('limits unauthenticated calls per client IP: login, register, webhooks and bad tokens share it', async () => {
    const ip = freshIp();
    const body = JSON.stringify({ documentId: 'unknown-doc', event: 'viewed' });
    const signature = createHmac('sha256', 'rate-limit-secret').update(body).digest('hex');
    const calls = [
      () =>
        t.app.inject({
          method: 'POST',
          url: '/api/v2/login',
          remoteAddress: ip,
          payload: { email: 'x@example.com', password: 'nope' },
        }),
      () => t.app.inject({ method: 'POST', url: '/api/v1/register', remoteAddress: ip }),
      () =>
        t.app.inject({
          method: 'GET',
          url: '/api/v2/enterprises',
          remoteAddress: ip,
          headers: { authorization: 'Bearer bad' },
        }),
      () =>
        t.app.inject({
          method: 'POST',
          url: '/api/webhooks/signprovider-a',
          remoteAddress: ip,
          payload: body,
          headers: { 'content-type': 'application/json', 'x-signprovidera-signature': signature },
        }),
    ];
    for (let i = 0; i < LIMIT; i++) {
      const call = calls[i % calls.length];
      if (!call) throw new Error('unreachable');
      const res = await call();
      expect(res.statusCode).not.toBe(429);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1 - i));
    }
    for (const call of calls) expect((await call()).statusCode).toBe(429);
    const otherIp = await t.app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: freshIp() });
    expect(otherIp.statusCode).toBe(403);
  });

  it('does not limit /health', async () => {
    const ip = freshIp();
    for (let i = 0; i < LIMIT + 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/health', remoteAddress: ip });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('counts a user by their token, not by their IP', async () => {
    const token = await freshToken();
    const ip = freshIp();
    for (let i = 0; i < LIMIT; i++) {
      await t.app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: ip });
    }
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/enterprises',
      remoteAddress: ip,
      headers: apiHeaders('v2', token),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('counts through @nestjs/throttler: its guard, once per request, over the project’s storage', async () => {
    const throttler = t.app.get(ApiThrottlerGuard);
    expect(throttler).toBeInstanceOf(ThrottlerGuard);
    expect(t.app.get(getStorageToken())).toBe(t.app.get(RateLimitStorage));
    const token = await freshToken();
    const checked = jest.spyOn(throttler, 'count');
    const counted = jest.spyOn(t.app.get(RateLimitStorage), 'countNow');
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v2/users',
        headers: apiHeaders('v2', token, tenant.enterpriseId),
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBe('59');
      expect(checked).toHaveBeenCalledTimes(1);
      // In-process windows: counted without a promise, so the request path awaits nothing for it.
      expect(checked.mock.results[0]?.value).toBeUndefined();
      expect(counted).toHaveBeenCalledTimes(1);
      expect(counted.mock.calls[0]).toEqual([expect.stringMatching(/^user:/), 60_000, LIMIT]);
    } finally {
      checked.mockRestore();
      counted.mockRestore();
    }
  });

  /** The throttler's count for one method of `routes` (its decorators' metadata is on the method itself), and the headers it set. */
  function countOnRoute(routes: new () => object, route: string, user: { id: string }) {
    const handler = Reflect.get<object, string>(routes.prototype as object, route) as () => void;
    const headers: Record<string, string> = {};
    const reply = {
      header(name: string, value: string) {
        headers[name] = value;
        return reply;
      },
    };
    const context = new ExecutionContextHost([{ user, ip: freshIp() }, reply], routes, handler);
    return { result: t.app.get(ApiThrottlerGuard).count(context), headers };
  }

  it('takes a route’s budget from @Throttle() and @SkipThrottle(), the module’s otherwise', () => {
    class Routes {
      @Throttle({ default: { limit: 2, ttl: 60_000 } })
      tight(): void {}
      plain(): void {}
      @SkipThrottle()
      free(): void {}
    }
    const user = { id: `budget-${Math.random()}` };
    const call = (route: 'tight' | 'plain' | 'free') => countOnRoute(Routes, route, user);
    expect(call('tight')).toEqual({
      result: undefined,
      headers: { 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '1' },
    });
    expect(call('tight').headers['X-RateLimit-Remaining']).toBe('0');
    expect(() => call('tight')).toThrow(expect.objectContaining({ status: 429 }));
    // One budget per user across routes: the other routes see the same window, with their own limit.
    expect(call('plain').headers).toEqual({
      'X-RateLimit-Limit': String(LIMIT),
      'X-RateLimit-Remaining': String(LIMIT - 3),
    });
    expect(call('free')).toEqual({ result: undefined, headers: {} });
  });

  it('leaves a budget computed per request to the library’s own loop, with the same answers', async () => {
    class Routes {
      // A limit the route works out from the request: no budget can be read once for it.
      @Throttle({ default: { limit: () => 2, ttl: 60_000 } })
      computed(): void {}
    }
    const libraryLoop = jest.spyOn(t.app.get(ApiThrottlerGuard), 'canActivate');
    const user = { id: `computed-${Math.random()}` };
    const call = () => countOnRoute(Routes, 'computed', user);
    try {
      const first = call();
      expect(first.result).toBeInstanceOf(Promise);
      await expect(first.result).resolves.toBe(true);
      expect(first.headers).toEqual({ 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '1' });
      const second = call();
      await expect(second.result).resolves.toBe(true);
      expect(second.headers['X-RateLimit-Remaining']).toBe('0');
      const third = call();
      await expect(third.result).rejects.toMatchObject({ status: 429 });
      expect(third.headers).toEqual(
        expect.objectContaining({ 'X-RateLimit-Limit': '2', 'X-RateLimit-Remaining': '0', 'Retry-After': '60' }),
      );
      expect(libraryLoop).toHaveBeenCalledTimes(3);
    } finally {
      libraryLoop.mockRestore();
    }
  });

  it('does not count a route marked @SkipThrottle() (health, the API documents, /docs) against its caller', async () => {
    const ip = freshIp();
    for (const url of ['/health', '/health/live', '/api/v1/openapi.json', '/api/v2/openapi.json', '/docs']) {
      for (let i = 0; i < 25; i++) {
        const res = await t.app.inject({ method: 'GET', url, remoteAddress: ip });
        expect({ url, status: res.statusCode < 400, limited: res.headers['x-ratelimit-limit'] }).toEqual({
          url,
          status: true,
          limited: undefined,
        });
      }
    }
    const counted = await t.app.inject({ method: 'POST', url: '/api/v2/register', remoteAddress: ip });
    expect(counted.headers['x-ratelimit-remaining']).toBe('59');
  });
});
