import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ApiThrottlerGuard } from '../../src/common/rate-limit/api-throttler.guard.js';
import { EnterpriseAccess } from '../../src/common/tenancy/enterprise-access.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * The access guard's steps after the token lookup answer without a promise when they have nothing
 * to wait for, so a read awaits nothing for them: under load each await was measured to cost
 * (docs/decisions/0870). The answers themselves are the access tests' subject.
 */
describe('the request path awaits nothing it does not wait for', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts, admits and enters a read without a promise; a write may wait for its place', async () => {
    const access = t.app.get(EnterpriseAccess);
    const steps = {
      count: jest.spyOn(t.app.get(ApiThrottlerGuard), 'count'),
      admit: jest.spyOn(access, 'admit'),
      enter: jest.spyOn(access, 'enter'),
    };
    const returned = () =>
      Object.fromEntries(
        Object.entries(steps).map(([name, spy]) => [name, spy.mock.results.map((r) => r.value instanceof Promise)]),
      );
    try {
      for (const version of ['v2', 'v1'] as const) {
        const res = await t.app.inject({
          method: 'GET',
          url: `/api/${version}/people`,
          headers: apiHeaders(version, token, tenant.enterpriseId),
        });
        expect(res.statusCode).toBe(200);
      }
      expect(returned()).toEqual({ count: [false, false], admit: [false, false], enter: [false, false] });

      const created = await t.app.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers: apiHeaders('v2', token, tenant.enterpriseId),
        payload: { title: 'Awaited', person_name: 'Jane Citizen' },
      });
      expect(created.statusCode).toBe(201);
      // A write's place in the enterprise's bulkhead is a step that may wait; the embedded database
      // has a pool of one connection, and so no bulkhead.
      expect(returned().enter).toEqual([false, false, access.bulkhead !== undefined]);
    } finally {
      for (const spy of Object.values(steps)) spy.mockRestore();
    }
  });
});
