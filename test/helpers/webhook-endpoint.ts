import { expect } from '@jest/globals';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from './fixtures.js';
import type { TestApp } from './test-app.js';

/**
 * A fresh enterprise with a member logged in and a webhook endpoint created through the API:
 * the member's v2 headers and the endpoint as the creation answered it.
 */
export async function enterpriseWithEndpoint(
  t: TestApp,
  body: Record<string, unknown>,
): Promise<{ tenant: Tenant; headers: Record<string, string>; endpoint: { id: string; secret: string } }> {
  const { doc, tenant } = tenantDocument();
  await importFixture(t, doc);
  const headers = apiHeaders(
    'v2',
    await loginToken(t.app, tenant.user.email, tenant.user.password),
    tenant.enterpriseId,
  );
  const made = await t.app.inject({ method: 'POST', url: '/api/v2/webhook-endpoints', headers, payload: body });
  expect(made.statusCode).toBe(201);
  return { tenant, headers, endpoint: made.json<{ data: { id: string; secret: string } }>().data };
}

/** POST /api/v2/leads with the headers given: the new lead's id (201 expected). */
export async function createLead(t: TestApp, headers: Record<string, string>, title: string): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v2/leads',
    headers,
    payload: { title, person_name: 'Pat' },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ data: { id: string } }>().data.id;
}
