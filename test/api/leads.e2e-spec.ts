import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

const T1 = '2026-01-01T09:00:00.000Z';
const T2 = '2026-02-01T09:00:00.000Z';
const T3 = '2026-03-01T09:00:00.000Z';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Version = 'v1' | 'v2';
interface V2Lead {
  id: string;
  enterprise_id: string | null;
  title: string;
  description: string | null;
  person_name: string | null;
  organisation_name: string | null;
  created_at: string;
  updated_at: string;
}

describe('leads: list, retrieve, create, update, delete', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  let outsiderToken: string;
  const older = randomUUID();
  const newer = randomUUID();
  const foreign = randomUUID();

  const suite = apiSuite({
    records: (tenant) => ({
      leads: [
        {
          id: older,
          enterprise_id: tenant.enterpriseId,
          title: 'Older lead',
          description: 'Kept as it is',
          person_name: 'Jane Citizen',
          organisation_name: null,
          created_at: T1,
          updated_at: T2,
        },
        {
          id: newer,
          enterprise_id: tenant.enterpriseId,
          title: 'Newer lead',
          description: null,
          person_name: null,
          organisation_name: 'Acme Pty Ltd',
          created_at: T2,
          updated_at: T2,
        },
        {
          id: foreign,
          enterprise_id: tenant.otherEnterpriseId,
          title: 'Foreign lead',
          person_name: 'Otto Outsider',
          created_at: T3,
          updated_at: T3,
        },
      ],
    }),
  });
  beforeAll(async () => {
    ({ t, tenant, token } = suite);
    outsiderToken = await loginToken(t.app, tenant.outsider.email, tenant.outsider.password);
  });

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    version: Version,
    path: string,
    payload?: unknown,
    headers: Record<string, string> = apiHeaders(version, token, tenant.enterpriseId),
  ) =>
    t.app.inject({
      method,
      url: `/api/${version}${path}`,
      headers,
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });

  const olderV2 = (): V2Lead => ({
    id: older,
    enterprise_id: tenant.enterpriseId,
    title: 'Older lead',
    description: 'Kept as it is',
    person_name: 'Jane Citizen',
    organisation_name: null,
    created_at: T1,
    updated_at: T2,
  });

  describe('GET /leads/{id}', () => {
    it('v2 answers {data: lead} with every lead field', async () => {
      const res = await call('GET', 'v2', `/leads/${older}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ data: olderV2() });
    });

    it('v1 answers the same lead in v1 casing', async () => {
      const res = await call('GET', 'v1', `/leads/${older}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        data: {
          ID: older,
          EnterpriseID: tenant.enterpriseId,
          Title: 'Older lead',
          Description: 'Kept as it is',
          PersonName: 'Jane Citizen',
          OrganisationName: null,
          CreatedAt: T1,
          UpdatedAt: T2,
        },
      });
    });

    it.each(['v1', 'v2'] as const)('%s: a lead of another enterprise is 403 with none of its data', async (version) => {
      const res = await call('GET', version, `/leads/${foreign}`);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Forbidden.' });
    });

    it.each([
      ['v1', 'an unknown id', '00000000-0000-4000-8000-000000000000'],
      ['v2', 'an unknown id', '00000000-0000-4000-8000-000000000000'],
      ['v1', 'a non-UUID id', 'lead-42'],
      ['v2', 'a non-UUID id', 'lead-42'],
    ] as const)('%s: %s is 404', async (version, _name, id) => {
      const res = await call('GET', version, `/leads/${id}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: `No query results for model [Lead] ${id}` });
    });

    it('is 403 for a caller who is not a member of the header’s enterprise, before the lookup', async () => {
      const res = await call(
        'GET',
        'v2',
        `/leads/${older}`,
        undefined,
        apiHeaders('v2', outsiderToken, tenant.enterpriseId),
      );
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Forbidden.' });
    });
  });

  describe('POST /leads', () => {
    it('v2 creates a lead: 201 {data: lead}, enterprise_id the header’s whatever the body says', async () => {
      const res = await call('POST', 'v2', '/leads', {
        title: 'Ute finance',
        person: 'Sam Buyer',
        organisation: 'Buyer Pty Ltd',
        description: 'Wants a 2024 Hilux',
        enterprise_id: tenant.otherEnterpriseId,
        team: tenant.otherEnterpriseId,
        id: foreign,
      });
      expect(res.statusCode).toBe(201);
      const { data } = res.json<{ data: V2Lead }>();
      expect(data).toEqual({
        id: expect.any(String) as unknown as string,
        enterprise_id: tenant.enterpriseId,
        title: 'Ute finance',
        description: 'Wants a 2024 Hilux',
        person_name: 'Sam Buyer',
        organisation_name: 'Buyer Pty Ltd',
        created_at: expect.stringMatching(ISO_MS) as unknown as string,
        updated_at: data.created_at,
      });
      expect(data.id).not.toBe(foreign);
      const retrieved = await call('GET', 'v2', `/leads/${data.id}`);
      expect(retrieved.json()).toEqual({ data });
    });

    it('v1 creates a lead: 201 {data: lead} in v1 casing', async () => {
      const res = await call('POST', 'v1', '/leads', {
        Title: 'Boat loan',
        PersonName: 'Pat Sailor',
        OrganisationName: 'Sail Co',
        Description: 'Needs it by summer',
        EnterpriseID: tenant.otherEnterpriseId,
      });
      expect(res.statusCode).toBe(201);
      const { data } = res.json<{ data: Record<string, unknown> }>();
      expect(data).toEqual({
        ID: expect.any(String) as unknown as string,
        EnterpriseID: tenant.enterpriseId,
        Title: 'Boat loan',
        Description: 'Needs it by summer',
        PersonName: 'Pat Sailor',
        OrganisationName: 'Sail Co',
        CreatedAt: expect.stringMatching(ISO_MS) as unknown as string,
        UpdatedAt: data.CreatedAt,
      });
    });

    it.each(['v1', 'v2'] as const)('%s: the created lead comes first in the list', async (version) => {
      const created = await call('POST', 'v2', '/leads', { title: `First in ${version}`, person_name: 'Lee' });
      const { id } = created.json<{ data: V2Lead }>().data;
      const list = await call('GET', version, '/leads');
      const first = list.json<{ data: Record<string, unknown>[] }>().data[0];
      expect(first?.[version === 'v1' ? 'ID' : 'id']).toBe(id);
    });

    it.each(['v1', 'v2'] as const)('%s: needs the enterprise header before anything else', async (version) => {
      const res = await call('POST', version, '/leads', {}, apiHeaders(version, token));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        message: `The ${version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id'} header is required.`,
      });
    });

    it('is 403 for a caller who is not a member, even with an invalid body', async () => {
      const res = await call('POST', 'v2', '/leads', {}, apiHeaders('v2', outsiderToken, tenant.enterpriseId));
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ message: 'Forbidden.' });
    });

    it('is 401 without a token', async () => {
      const res = await call('POST', 'v2', '/leads', { title: 'x', person: 'y' }, {});
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ message: 'Unauthenticated.' });
    });
  });

  describe('PUT /leads/{id}', () => {
    const createLead = async (): Promise<V2Lead> => {
      const res = await call('POST', 'v2', '/leads', {
        title: 'Before',
        person_name: 'Jane',
        organisation_name: 'Org',
        description: 'Unchanged',
        purchase_price: 1000,
      });
      return res.json<{ data: V2Lead }>().data;
    };

    it('v2 answers {data: lead}; fields absent from the body stay unchanged', async () => {
      const lead = await createLead();
      const res = await call('PUT', 'v2', `/leads/${lead.id}`, { Title: 'After', PersonName: 'Janet' });
      expect(res.statusCode).toBe(200);
      const { data } = res.json<{ data: V2Lead }>();
      expect(data).toEqual({
        ...lead,
        title: 'After',
        person_name: 'Janet',
        updated_at: expect.stringMatching(ISO_MS) as unknown as string,
      });
      expect(Date.parse(data.updated_at)).toBeGreaterThanOrEqual(Date.parse(lead.updated_at));
      const [row] = await selectRows<{ purchase_price: unknown }>(
        t.dataSource,
        'SELECT purchase_price FROM leads WHERE id = $1',
        [lead.id],
      );
      expect(row?.purchase_price).toBe(1000);
    });

    it('v2 sets a field sent as null, and maps organisation to organisation_name', async () => {
      const lead = await createLead();
      const cleared = await call('PUT', 'v2', `/leads/${lead.id}`, {
        title: 'After',
        person: 'Jo',
        description: null,
        organisation: null,
      });
      expect(cleared.json<{ data: V2Lead }>().data).toMatchObject({
        description: null,
        organisation_name: null,
        person_name: 'Jo',
      });
      const mapped = await call('PUT', 'v2', `/leads/${lead.id}`, {
        title: 'After',
        person: 'Jo',
        organisation: 'New Org',
      });
      expect(mapped.json<{ data: V2Lead }>().data.organisation_name).toBe('New Org');
    });

    it('v1 answers the updated lead itself in v1 casing, not wrapped', async () => {
      const lead = await createLead();
      const res = await call('PUT', 'v1', `/leads/${lead.id}`, { title: 'After v1', PersonName: 'Janet' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        ID: lead.id,
        EnterpriseID: tenant.enterpriseId,
        Title: 'After v1',
        Description: 'Unchanged',
        PersonName: 'Janet',
        OrganisationName: 'Org',
        CreatedAt: lead.created_at,
        UpdatedAt: expect.stringMatching(ISO_MS) as unknown as string,
      });
    });

    it.each(['v1', 'v2'] as const)('%s: a lead of another enterprise is 403, even with an invalid body', async (v) => {
      for (const body of [{ title: 'Taken over', person: 'Me', Title: 'Taken over', PersonName: 'Me' }, {}]) {
        const res = await call('PUT', v, `/leads/${foreign}`, body);
        expect(res.statusCode).toBe(403);
        expect(res.json()).toEqual({ message: 'Forbidden.' });
      }
      const [row] = await selectRows<{ title: string }>(t.dataSource, 'SELECT title FROM leads WHERE id = $1', [
        foreign,
      ]);
      expect(row?.title).toBe('Foreign lead');
    });

    it.each([
      ['v1', '00000000-0000-4000-8000-000000000000'],
      ['v2', '00000000-0000-4000-8000-000000000000'],
      ['v1', 'not-a-uuid'],
      ['v2', 'not-a-uuid'],
    ] as const)('%s: %s is 404 before the body is validated', async (version, id) => {
      const res = await call('PUT', version, `/leads/${id}`, {});
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: `No query results for model [Lead] ${id}` });
    });

    it.each([
      ['v2', { person: 'Jane' }, { title: ['The title field is required.'] }],
      ['v1', { PersonName: 'Jane' }, { Title: ['The title field is required.'] }],
    ] as const)('%s: a body missing the title is 400 and changes nothing', async (version, body, errors) => {
      const lead = await createLead();
      const res = await call('PUT', version, `/leads/${lead.id}`, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: 'The given data was invalid.', errors });
      expect((await call('GET', 'v2', `/leads/${lead.id}`)).json()).toEqual({ data: lead });
    });

    it('v2: a partial update without a person is 400', async () => {
      const lead = await createLead();
      const res = await call('PUT', 'v2', `/leads/${lead.id}`, { title: 'Only the title' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        message: 'The given data was invalid.',
        errors: {
          person: ['The person field is required when person name is not present.'],
          person_name: ['The person name field is required when person is not present.'],
        },
      });
    });

    it('PATCH is not a lead route: 405 naming the methods that are', async () => {
      const res = await call('PATCH', 'v2', `/leads/${older}`, { title: 'x', person: 'y' });
      expect(res.statusCode).toBe(405);
      expect(res.headers.allow).toBe('DELETE, GET, PUT');
    });
  });

  describe('DELETE /leads/{id}', () => {
    it.each(['v1', 'v2'] as const)('%s: is 403 for an own lead, a foreign one and a non-UUID id', async (version) => {
      for (const id of [older, foreign, 'not-a-uuid']) {
        const res = await call('DELETE', version, `/leads/${id}`);
        expect({ id, status: res.statusCode, body: res.json<unknown>() }).toEqual({
          id,
          status: 403,
          body: { message: 'Forbidden.' },
        });
      }
      expect((await call('GET', 'v2', `/leads/${older}`)).statusCode).toBe(200);
    });

    it('is 401 first without a token', async () => {
      const res = await call('DELETE', 'v2', `/leads/${older}`, undefined, {});
      expect(res.statusCode).toBe(401);
    });
  });
});

describe('GET /leads pagination', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ APP_URL: 'https://api.example.com' });
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    // 101 leads, one a minute apart; the newest has index 100.
    const leads = Array.from({ length: 101 }, (_, i) => {
      const id = randomUUID();
      ids.push(id);
      return {
        id,
        enterprise_id: tenant.enterpriseId,
        title: `Lead ${i}`,
        person_name: 'P',
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
      };
    });
    leads.push({
      id: randomUUID(),
      enterprise_id: tenant.otherEnterpriseId,
      title: 'Foreign',
      person_name: 'F',
    } as never);
    await importFixture(t, { ...fixture.doc, leads });
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (version: Version, query = '') =>
    t.app.inject({
      method: 'GET',
      url: `/api/${version}/leads${query}`,
      headers: apiHeaders(version, token, tenant.enterpriseId),
    });

  it('page 1: the 100 newest of the enterprise’s leads, newest first, with links and meta', async () => {
    const res = await list('v2', '?per_page=5&sort=title');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ data: V2Lead[]; links: unknown; meta: unknown }>();
    expect(body.data).toHaveLength(100);
    expect(body.data.map((lead) => lead.id)).toEqual(ids.slice(1).reverse());
    expect(body.links).toEqual({
      first: 'https://api.example.com/api/v2/leads?page=1',
      last: 'https://api.example.com/api/v2/leads?page=2',
      prev: null,
      next: 'https://api.example.com/api/v2/leads?page=2',
    });
    expect(body.meta).toEqual({
      current_page: 1,
      from: 1,
      to: 100,
      last_page: 2,
      path: 'https://api.example.com/api/v2/leads',
      per_page: 100,
      total: 101,
    });
  });

  it('page 2 holds the oldest lead; v1 cases the records but not the envelope', async () => {
    const res = await list('v1', '?page=2');
    expect(res.json()).toEqual({
      data: [
        {
          ID: ids[0],
          EnterpriseID: tenant.enterpriseId,
          Title: 'Lead 0',
          Description: null,
          PersonName: 'P',
          OrganisationName: null,
          CreatedAt: '2026-01-01T00:00:00.000Z',
          UpdatedAt: expect.stringMatching(ISO_MS) as unknown as string,
        },
      ],
      links: {
        first: 'https://api.example.com/api/v1/leads?page=1',
        last: 'https://api.example.com/api/v1/leads?page=2',
        prev: 'https://api.example.com/api/v1/leads?page=1',
        next: null,
      },
      meta: {
        current_page: 2,
        from: 101,
        to: 101,
        last_page: 2,
        path: 'https://api.example.com/api/v1/leads',
        per_page: 100,
        total: 101,
      },
    });
  });

  it('a page past the end is 200 with empty data', async () => {
    const res = await list('v2', '?page=5');
    expect(res.statusCode).toBe(200);
    const body = res.json<{ data: unknown[]; links: { prev: string | null; next: string | null } }>();
    expect(body.data).toEqual([]);
    expect(body.links.prev).toBe('https://api.example.com/api/v2/leads?page=4');
    expect(body.links.next).toBeNull();
  });

  it.each(['abc', '0', '-1'])('page=%s means page 1', async (page) => {
    const res = await list('v2', `?page=${page}`);
    expect(res.json<{ meta: { current_page: number } }>().meta.current_page).toBe(1);
  });

  it('an enterprise without leads lists 200 with empty data', async () => {
    const fixture = tenantDocument();
    await importFixture(t, fixture.doc);
    const other = await loginToken(t.app, fixture.tenant.user.email, fixture.tenant.user.password);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', other, fixture.tenant.enterpriseId),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: unknown[]; meta: { total: number; from: null } }>()).toMatchObject({
      data: [],
      meta: { total: 0, from: null, to: null, last_page: 1 },
    });
  });
});
