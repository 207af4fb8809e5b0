import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, loginToken, tenantDocument } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const { doc, tenant } = tenantDocument();
const OWN = tenant.enterpriseId;
const OTHER = tenant.otherEnterpriseId;
const VERSIONS = ['v1', 'v2'] as const;

const ids = {
  people: { own: randomUUID(), foreign: randomUUID(), model: 'Person' },
  organisations: { own: randomUUID(), foreign: randomUUID(), model: 'Organisation' },
  applications: { own: randomUUID(), foreign: randomUUID(), model: 'Application' },
  quotes: { own: randomUUID(), foreign: randomUUID(), model: 'Quote' },
};
const RESOURCES = Object.keys(ids) as (keyof typeof ids)[];

const fixture = {
  ...doc,
  people: [
    { id: ids.people.own, enterprise_id: OWN, first_name: 'Own' },
    { id: ids.people.foreign, enterprise_id: OTHER, first_name: 'Secret', last_name: 'Foreigner' },
  ],
  organisations: [
    { id: ids.organisations.own, enterprise_id: OWN, legal_name: 'Own Pty Ltd' },
    { id: ids.organisations.foreign, enterprise_id: OTHER, legal_name: 'Secret Pty Ltd' },
  ],
  applications: [
    { id: ids.applications.own, enterprise_id: OWN, contract_number: 'OWN-1' },
    { id: ids.applications.foreign, enterprise_id: OTHER, contract_number: 'SECRET-1' },
  ],
  quotes: [
    { id: ids.quotes.own, enterprise_id: OWN, application_id: ids.applications.own, is_active: true },
    {
      id: ids.quotes.foreign,
      enterprise_id: OTHER,
      application_id: ids.applications.foreign,
      is_active: true,
      calculation: { financier: 'Secret Bank' },
    },
  ],
};

describe('access to people, organisations, applications and quotes', () => {
  let t: TestApp;
  let token: string;
  let outsiderToken: string;

  const suite = apiSuite({ fixture: { doc: fixture, tenant } });
  beforeAll(async () => {
    ({ t, token } = suite);
    outsiderToken = await loginToken(t.app, tenant.outsider.email, tenant.outsider.password);
  });

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, headers: Record<string, string>) =>
    t.app.inject({ method, url, headers, payload: method === 'GET' || method === 'DELETE' ? undefined : { a: 1 } });

  const each = RESOURCES.flatMap((resource) => VERSIONS.map((version) => [resource, version] as const));

  it.each(each)('%s (%s): retrieving another enterprise’s record is 403 with none of its data', async (r, v) => {
    const res = await call('GET', `/api/${v}/${r}/${ids[r].foreign}`, apiHeaders(v, token, OWN));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
  });

  it.each(each)('%s (%s): the list holds only the enterprise’s own records', async (r, v) => {
    const res = await call('GET', `/api/${v}/${r}`, apiHeaders(v, token, OWN));
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain(ids[r].foreign);
    expect(res.body).not.toMatch(/Secret/);
    const idKey = v === 'v1' ? 'ID' : 'id';
    expect(res.json<{ data: Record<string, unknown>[] }>().data.map((d) => d[idKey])).toStrictEqual([ids[r].own]);
  });

  it.each(each)('%s (%s): the owner enterprise’s member sees the record', async (r, v) => {
    const res = await call('GET', `/api/${v}/${r}/${ids[r].foreign}`, apiHeaders(v, outsiderToken, OTHER));
    expect(res.statusCode).toBe(200);
  });

  it.each(
    each.flatMap(([r, v]) =>
      ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '123'].map((id) => [r, v, id] as const),
    ),
  )('%s (%s): %s is 404 naming the model', async (r, v, id) => {
    const res = await call('GET', `/api/${v}/${r}/${id}`, apiHeaders(v, token, OWN));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toStrictEqual({ message: `No query results for model [${ids[r].model}] ${id}` });
  });

  it.each(each)('%s (%s): every write method on every path is 403', async (r, v) => {
    for (const path of [`/${r}`, `/${r}/${ids[r].own}`, `/${r}/${ids[r].foreign}`, `/${r}/not-a-uuid`]) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        const res = await call(method, `/api/${v}${path}`, apiHeaders(v, token, OWN));
        expect({ method, path, status: res.statusCode, body: res.json<unknown>() }).toStrictEqual({
          method,
          path,
          status: 403,
          body: { message: 'Forbidden.' },
        });
      }
    }
  });

  it.each(each)('%s (%s): no token is 401, before anything else', async (r, v) => {
    for (const method of ['GET', 'POST', 'DELETE'] as const) {
      const res = await call(method, `/api/${v}/${r}/not-a-uuid`, { accept: 'application/json' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toStrictEqual({ message: 'Unauthenticated.' });
    }
  });

  it.each(each)('%s (%s): a missing enterprise header is 403 naming it, before 404', async (r, v) => {
    const res = await call('GET', `/api/${v}/${r}/not-a-uuid`, apiHeaders(v, token));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toStrictEqual({
      message: `The ${v === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id'} header is required.`,
    });
  });

  it.each(each)('%s (%s): an enterprise the caller is not a member of is 403, list and retrieve', async (r, v) => {
    for (const path of [`/${r}`, `/${r}/${ids[r].foreign}`]) {
      const res = await call('GET', `/api/${v}${path}`, apiHeaders(v, token, OTHER));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toStrictEqual({ message: 'Forbidden.' });
    }
  });
});
