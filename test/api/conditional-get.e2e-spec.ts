import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { apiHeaders, importFixture, type Tenant } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

type Version = 'v1' | 'v2';

describe('conditional GET: ETag and If-None-Match', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  const ids = {
    person: randomUUID(),
    otherPerson: randomUUID(),
    organisation: randomUUID(),
    application: randomUUID(),
    quote: randomUUID(),
    lead: randomUUID(),
    foreignLead: randomUUID(),
    phone: randomUUID(),
  };

  const suite = apiSuite({
    records: (tenant) => ({
      people: [
        {
          id: ids.person,
          enterprise_id: tenant.enterpriseId,
          last_name: 'Citizen',
          phone_numbers: [{ id: ids.phone, type: 'mobile', number: '0400 000 000' }],
        },
        { id: ids.otherPerson, enterprise_id: tenant.enterpriseId, last_name: 'Other' },
      ],
      organisations: [{ id: ids.organisation, enterprise_id: tenant.enterpriseId, legal_name: 'Acme' }],
      applications: [{ id: ids.application, enterprise_id: tenant.enterpriseId }],
      quotes: [
        {
          id: ids.quote,
          enterprise_id: tenant.enterpriseId,
          application_id: ids.application,
          is_active: true,
          calculation: { financier: 'Example Bank' },
        },
      ],
      leads: [
        { id: ids.lead, enterprise_id: tenant.enterpriseId, title: 'Car loan', person_name: 'Jane' },
        { id: ids.foreignLead, enterprise_id: tenant.otherEnterpriseId, title: 'Theirs', person_name: 'Otto' },
      ],
    }),
  });
  beforeAll(() => void ({ t, tenant, token } = suite));

  function get(version: Version, path: string, extra: Record<string, string> = {}) {
    return t.app.inject({
      method: 'GET',
      url: `/api/${version}/${path}`,
      headers: { ...apiHeaders(version, token, tenant.enterpriseId), ...extra },
    });
  }

  /** The ETag of a 200, then whether the same request with it answers 304. */
  async function revalidates(version: Version, path: string, tag: string): Promise<boolean> {
    const res = await get(version, path, { 'if-none-match': tag });
    if (res.statusCode === 304) {
      expect(res.body).toBe('');
      expect(res.headers.etag).toMatch(/^W\/"/);
      return true;
    }
    expect(res.statusCode).toBe(200);
    return false;
  }

  async function tagOf(version: Version, path: string): Promise<string> {
    const res = await get(version, path);
    expect(res.statusCode).toBe(200);
    const tag = res.headers.etag;
    expect(typeof tag).toBe('string');
    expect(tag).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    return tag as string;
  }

  const ROUTES: readonly (readonly [string, () => string])[] = [
    ['people', () => 'people'],
    ['people/{id}', () => `people/${ids.person}`],
    ['organisations', () => 'organisations'],
    ['organisations/{id}', () => `organisations/${ids.organisation}`],
    ['applications', () => 'applications'],
    ['applications/{id}', () => `applications/${ids.application}`],
    ['quotes', () => 'quotes'],
    ['quotes/{id}', () => `quotes/${ids.quote}`],
    ['leads', () => 'leads'],
    ['leads/{id}', () => `leads/${ids.lead}`],
    ['users', () => 'users'],
    ['users/{id}', () => `users/${tenant.user.id}`],
  ];

  describe.each(['v1', 'v2'] as const)('%s', (version) => {
    it.each(ROUTES)(
      '%s answers an ETag, and 304 with no body to If-None-Match while nothing changed',
      async (_, route) => {
        const path = route();
        const tag = await tagOf(version, path);
        const res = await get(version, path, { 'if-none-match': tag });
        expect(res.statusCode).toBe(304);
        expect(res.body).toBe('');
        expect(res.headers.etag).toBe(tag);
        expect(res.headers['x-ratelimit-limit']).toBeDefined();
        expect(res.headers['cache-control']).toBe('no-store');
      },
    );
  });

  it('a client sending no If-None-Match gets the same body as ever, plus the ETag', async () => {
    const first = await get('v2', `leads/${ids.lead}`);
    const second = await get('v2', `leads/${ids.lead}`);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('tags differ between versions, pages, records and enterprises', async () => {
    const tags = new Set([
      await tagOf('v1', 'people'),
      await tagOf('v2', 'people'),
      await tagOf('v2', 'people?page=2'),
      await tagOf('v2', `people/${ids.person}`),
      await tagOf('v2', `people/${ids.otherPerson}`),
    ]);
    expect(tags.size).toBe(5);
    expect(await revalidates('v2', 'people?page=2', await tagOf('v2', 'people'))).toBe(false);
  });

  it('a lead PUT changes the lead’s and the list’s tags, not another record’s', async () => {
    const record = await tagOf('v2', `leads/${ids.lead}`);
    const list = await tagOf('v1', 'leads');
    const person = await tagOf('v2', `people/${ids.person}`);
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/v2/leads/${ids.lead}`,
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title: 'Boat loan', person_name: 'Jane' },
    });
    expect(put.statusCode).toBe(200);
    expect(await revalidates('v2', `leads/${ids.lead}`, record)).toBe(false);
    expect(await revalidates('v1', 'leads', list)).toBe(false);
    expect(await revalidates('v2', `people/${ids.person}`, person)).toBe(true);
  });

  it('an import that changes only a nested row changes the person’s tag and the list’s', async () => {
    const record = await tagOf('v2', `people/${ids.person}`);
    const other = await tagOf('v2', `people/${ids.otherPerson}`);
    const list = await tagOf('v2', 'people');
    await importFixture(t, {
      people: [
        {
          id: ids.person,
          enterprise_id: tenant.enterpriseId,
          last_name: 'Citizen',
          phone_numbers: [{ id: ids.phone, type: 'mobile', number: '0499 999 999' }],
        },
      ],
    });
    expect(await revalidates('v2', `people/${ids.person}`, record)).toBe(false);
    expect(await revalidates('v2', 'people', list)).toBe(false);
    expect(await revalidates('v2', `people/${ids.otherPerson}`, other)).toBe(true);
  });

  it('a plain SQL update of a quote changes the quote’s, its application’s and both lists’ tags', async () => {
    const tags = {
      quote: await tagOf('v2', `quotes/${ids.quote}`),
      application: await tagOf('v2', `applications/${ids.application}`),
      quotes: await tagOf('v1', 'quotes'),
      applications: await tagOf('v2', 'applications'),
    };
    await t.dataSource.query(`UPDATE quotes SET financier = 'Other Bank' WHERE id = $1`, [ids.quote]);
    expect(await revalidates('v2', `quotes/${ids.quote}`, tags.quote)).toBe(false);
    expect(await revalidates('v2', `applications/${ids.application}`, tags.application)).toBe(false);
    expect(await revalidates('v1', 'quotes', tags.quotes)).toBe(false);
    expect(await revalidates('v2', 'applications', tags.applications)).toBe(false);
  });

  it('a new record and a deleted one change the list’s tag', async () => {
    let list = await tagOf('v2', 'organisations');
    const created = randomUUID();
    await importFixture(t, {
      organisations: [{ id: created, enterprise_id: tenant.enterpriseId, legal_name: 'New Co' }],
    });
    expect(await revalidates('v2', 'organisations', list)).toBe(false);
    list = await tagOf('v2', 'organisations');
    await t.dataSource.query(`DELETE FROM organisations WHERE id = $1`, [created]);
    expect(await revalidates('v2', 'organisations', list)).toBe(false);
  });

  it('If-None-Match: * and a list of tags match; a stale tag does not', async () => {
    const tag = await tagOf('v2', `organisations/${ids.organisation}`);
    expect(await revalidates('v2', `organisations/${ids.organisation}`, '*')).toBe(true);
    expect(await revalidates('v2', `organisations/${ids.organisation}`, `W/"old", ${tag}`)).toBe(true);
    expect(await revalidates('v2', `organisations/${ids.organisation}`, tag.replace(/^W\//, ''))).toBe(true);
    expect(await revalidates('v2', `organisations/${ids.organisation}`, 'W/"old"')).toBe(false);
  });

  it('the checks before it still come first, and errors carry no tag', async () => {
    const tag = await tagOf('v2', `leads/${ids.lead}`);
    const anonymous = await t.app.inject({
      method: 'GET',
      url: `/api/v2/leads/${ids.lead}`,
      headers: { 'if-none-match': tag },
    });
    expect(anonymous.statusCode).toBe(401);
    const foreign = await get('v2', `leads/${ids.foreignLead}`, { 'if-none-match': '*' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers.etag).toBeUndefined();
    const missing = await get('v2', `leads/${randomUUID()}`, { 'if-none-match': '*' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
  });
});
