import { beforeAll, describe, expect, it } from '@jest/globals';
import { selectRows } from '../../src/database/sql.js';
import { apiHeaders, type Tenant } from '../helpers/fixtures.js';
import { type TestApp } from '../helpers/test-app.js';
import { apiSuite } from '../helpers/api-suite.js';

type Version = 'v1' | 'v2';
type Body = Record<string, unknown>;
type Errors = Record<string, string[]>;

const INVALID = 'The given data was invalid.';
/** 255 and 256 characters of text outside the BMP: 510 and 512 UTF-16 units, 1020 and 1024 bytes. */
const EMOJI_255 = '😀'.repeat(255);
const EMOJI_256 = '😀'.repeat(256);
/** Two-byte characters (é), and a 255-character mix of one-, two-, three- and four-byte ones. */
const ACCENT_256 = 'é'.repeat(256);
const MIXED_255 = 'aé€😀'.repeat(63) + 'a€😀';

const required = (label: string) => `The ${label} field is required.`;
const requiredWithout = (label: string, other: string) =>
  `The ${label} field is required when ${other} is not present.`;
const mustBeString = (label: string) => `The ${label} field must be a string.`;
const tooLong = (label: string) => `The ${label} field must not be greater than 255 characters.`;
const mustBeScalar = (label: string) => `The ${label} field must be a string, number, boolean or null.`;
const unstorable = (label: string) => `The ${label} field must not contain null characters or unpaired surrogates.`;

const NEITHER_PERSON: Errors = {
  person: [requiredWithout('person', 'person name')],
  person_name: [requiredWithout('person name', 'person')],
};

const V2_STRING_FIELDS = [
  'abn',
  'description',
  'use',
  'asset_description',
  'funds_required_within',
  'phone',
  'phone_type',
  'email_type',
  'source',
] as const;
const V2_MIXED_FIELDS = [
  'person_id',
  'organisation_id',
  'has_abn',
  'user_assigned_id',
  'purchase_price',
  'deposit',
  'trade_in',
  'finance_amount',
  'residual',
  'finance_term',
  'realestate_owner',
  'finance_last_3_years',
  'applied_already',
  'broker_id',
] as const;
const label = (field: string) => field.replace(/_/g, ' ');

interface StoredLead {
  id: string;
  enterprise_id: string;
  title: string;
  person_name: string | null;
  organisation_name: string | null;
  description: string | null;
  [column: string]: unknown;
  extra_input: Record<string, unknown>;
}

describe('lead validation and input mapping', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;

  const suite = apiSuite();
  beforeAll(() => void ({ t, tenant, token } = suite));

  const post = (version: Version, payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `/api/${version}/leads`,
      headers: { ...apiHeaders(version, token, tenant.enterpriseId), 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });

  const stored = async (id: string): Promise<StoredLead> => {
    const [row] = await selectRows<StoredLead>(t.dataSource, 'SELECT * FROM leads WHERE id = $1', [id]);
    if (!row) throw new Error(`lead ${id} not stored`);
    return row;
  };

  /** Posts a body that must pass and returns the stored row. */
  const create = async (version: Version, body: unknown): Promise<StoredLead> => {
    const res = await post(version, body);
    expect({ status: res.statusCode, body: res.statusCode === 201 ? 'created' : res.json<unknown>() }).toEqual({
      status: 201,
      body: 'created',
    });
    const data = res.json<{ data: { id?: string; ID?: string } }>().data;
    return stored(data.id ?? data.ID ?? '');
  };

  const expectErrors = async (version: Version, body: unknown, errors: Errors) => {
    const res = await post(version, body);
    expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({
      status: 400,
      body: { message: INVALID, errors },
    });
  };

  describe('v2 rules, each with a passing and a failing body', () => {
    const base = { title: 'Car loan', person: 'Jane Citizen' };

    it.each<[string, Body, Errors]>([
      ['title missing', { person: 'Jane' }, { title: [required('title')] }],
      ['title null', { title: null, person: 'Jane' }, { title: [required('title')] }],
      ['title empty', { title: '', person: 'Jane' }, { title: [required('title')] }],
      ['title blank', { title: '   ', person: 'Jane' }, { title: [required('title')] }],
      ['title a number', { title: 42, person: 'Jane' }, { title: [mustBeString('title')] }],
      ['title an object', { title: { text: 'x' }, person: 'Jane' }, { title: [mustBeString('title')] }],
      ['title 256 characters', { title: 'x'.repeat(256), person: 'Jane' }, { title: [tooLong('title')] }],
      ['neither person nor person_name', { title: 'T' }, NEITHER_PERSON],
      ['both null', { title: 'T', person: null, person_name: null }, NEITHER_PERSON],
      ['both empty', { title: 'T', person: '', person_name: ' ' }, NEITHER_PERSON],
      ['person a number', { title: 'T', person: 7 }, { person: [mustBeString('person')] }],
      ['person_name a boolean', { title: 'T', person_name: true }, { person_name: [mustBeString('person name')] }],
      ['person 256', { title: 'T', person: 'p'.repeat(256) }, { person: [tooLong('person')] }],
      ['person_name 256', { title: 'T', person_name: 'p'.repeat(256) }, { person_name: [tooLong('person name')] }],
      ['organisation 256', { ...base, organisation: 'o'.repeat(256) }, { organisation: [tooLong('organisation')] }],
      [
        'organisation_name 256',
        { ...base, organisation_name: 'o'.repeat(256) },
        { organisation_name: [tooLong('organisation name')] },
      ],
      ['organisation a number', { ...base, organisation: 5 }, { organisation: [mustBeString('organisation')] }],
      [
        'email not an address',
        { ...base, email: 'not-an-email' },
        { email: ['The email field must be a valid email address.'] },
      ],
      ['email a number', { ...base, email: 5 }, { email: [mustBeString('email')] }],
      ['a NUL character', { ...base, description: 'a\u0000b' }, { description: [unstorable('description')] }],
      [
        'an unpaired surrogate',
        { ...base, purchase_price: 'x\ud800' },
        { purchase_price: [unstorable('purchase price')] },
      ],
      [
        'several fields at once',
        { title: 'x'.repeat(300), email: 'nope', has_abn: [true] },
        {
          title: [tooLong('title')],
          ...NEITHER_PERSON,
          email: ['The email field must be a valid email address.'],
          has_abn: [mustBeScalar('has abn')],
        },
      ],
    ])('fails: %s', async (_name, body, errors) => {
      await expectErrors('v2', body, errors);
    });

    it.each<[string, Body, Partial<StoredLead>]>([
      ['person only', { title: 'T', person: 'Jane' }, { title: 'T', person_name: 'Jane' }],
      ['person_name only', { title: 'T', person_name: 'Jane' }, { person_name: 'Jane' }],
      ['person null, person_name given', { title: 'T', person: null, person_name: 'Jane' }, { person_name: 'Jane' }],
      ['person_name empty, person given', { title: 'T', person: 'Jo', person_name: '' }, { person_name: 'Jo' }],
      ['person_name wins over person', { title: 'T', person: 'Jo', person_name: 'Jane' }, { person_name: 'Jane' }],
      ['title of 255 characters', { title: 't'.repeat(255), person: 'P' }, { title: 't'.repeat(255) }],
      ['organisation', { ...base, organisation: 'Acme' }, { organisation_name: 'Acme' }],
      ['organisation_name wins', { ...base, organisation: 'A', organisation_name: 'B' }, { organisation_name: 'B' }],
      ['organisation null', { ...base, organisation: null }, { organisation_name: null }],
      ['email valid', { ...base, email: 'jane@example.com' }, { email: 'jane@example.com' }],
      ['email null', { ...base, email: null }, { email: null }],
      ['email empty (counts as absent)', { ...base, email: '' }, { email: null }],
      [
        'a team of another enterprise, ignored',
        { ...base, team: 'someone-else', enterprise_id: '00000000-0000-4000-8000-000000000000' },
        { title: 'Car loan' },
      ],
    ])('passes: %s', async (_name, body, expected) => {
      const row = await create('v2', body);
      expect(row).toMatchObject({ ...expected, enterprise_id: tenant.enterpriseId });
    });

    it.each(V2_STRING_FIELDS)('%s: a string passes and is stored, null passes, a number fails', async (field) => {
      expect((await create('v2', { ...base, [field]: 'Some text' }))[field]).toBe('Some text');
      expect((await create('v2', { ...base, [field]: null }))[field]).toBeNull();
      await expectErrors('v2', { ...base, [field]: 12 }, { [field]: [mustBeString(label(field))] });
    });

    it.each(V2_MIXED_FIELDS)(
      '%s: any JSON scalar or null passes and keeps its type; an object or array fails',
      async (field) => {
        for (const value of ['25000.00', 25000.5, 0, true, false, null]) {
          expect((await create('v2', { ...base, [field]: value }))[field]).toEqual(value);
        }
        for (const value of [{ amount: 1 }, [1, 2]]) {
          await expectErrors('v2', { ...base, [field]: value }, { [field]: [mustBeScalar(label(field))] });
        }
      },
    );

    it('stores every accepted field and drops the keys outside the rule set', async () => {
      const row = await create('v2', {
        ...base,
        description: 'Desc',
        abn: '51824753556',
        email: 'jane@example.com',
        phone: '0400 000 000',
        finance_amount: 45000,
        has_abn: 'yes',
        unknown_key: 'dropped',
      });
      expect(row).toMatchObject({
        description: 'Desc',
        abn: '51824753556',
        email: 'jane@example.com',
        phone: '0400 000 000',
        finance_amount: 45000,
        has_abn: 'yes',
        extra_input: {},
      });
      expect(row).not.toHaveProperty('unknown_key');
    });
  });

  describe('v2 key normalisation', () => {
    it('reads PascalCase, camelCase and acronym keys as the snake_case fields', async () => {
      const row = await create('v2', {
        Title: 'Pascal',
        personName: 'Camel Case',
        OrganisationName: 'Org',
        PersonID: 17,
        HasABN: true,
        UserAssignedID: 'u-1',
        FinanceLast3Years: 'no',
        EmailType: 'work',
        PhoneType: 'Mobile',
        PurchasePrice: '12000.00',
      });
      expect(row).toMatchObject({
        title: 'Pascal',
        person_name: 'Camel Case',
        organisation_name: 'Org',
        person_id: 17,
        has_abn: true,
        user_assigned_id: 'u-1',
        finance_last_3_years: 'no',
        email_type: 'work',
        phone_type: 'Mobile',
        purchase_price: '12000.00',
      });
    });

    it.each<[string, string, string]>([
      ['Title then title', '{"Title": "first", "title": "second", "person": "P"}', 'second'],
      ['title then Title', '{"title": "first", "Title": "second", "person": "P"}', 'second'],
      ['title then TITLE', '{"title": "first", "TITLE": "second", "person": "P"}', 'second'],
    ])('the later of two casings wins: %s', async (_name, json, title) => {
      expect((await create('v2', json)).title).toBe(title);
    });

    it('the later casing wins even when it fails validation', async () => {
      await expectErrors('v2', '{"title": "fine", "Title": 5, "person": "P"}', { title: [mustBeString('title')] });
    });

    it('reports errors under the snake_case name whatever casing was sent', async () => {
      await expectErrors(
        'v2',
        { Title: 'T', PersonName: 'P', EmailAddress: 'x', Email: 'nope' },
        {
          email: ['The email field must be a valid email address.'],
        },
      );
    });

    it('normalises nested keys: an object in a mixed field is refused under its snake_case name', async () => {
      await expectErrors(
        'v2',
        { Title: 'T', Person: 'P', PersonID: { Contact: { PhoneNumbers: [{ PhoneType: 'Mobile' }] } } },
        { person_id: [mustBeScalar('person id')] },
      );
    });

    it('leaves v1 keys alone: snake_case-looking camelCase keys are not read as fields', async () => {
      const row = await create('v1', { Title: 'T', PersonName: 'P', personName: 'not a field', assetDescription: 'x' });
      expect(row).toMatchObject({
        person_name: 'P',
        asset_description: null,
        extra_input: { personName: 'not a field', assetDescription: 'x' },
      });
    });

    it('does not normalise login bodies: a PascalCase Email is missing', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v2/login',
        payload: { Email: tenant.user.email, Password: tenant.user.password },
      });
      expect(res.statusCode).toBe(422);
    });

    it('cannot pollute prototypes with __Proto__ or Constructor keys', async () => {
      const row = await create(
        'v2',
        '{"Title": "T", "Person": "P", "__Proto__": {"polluted": true}, "Constructor": {"Prototype": {"polluted": true}}}',
      );
      expect(row.title).toBe('T');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it.each(['v1', 'v2'] as const)('%s: a literal __proto__ key is refused as malformed JSON', async (version) => {
      const res = await post(version, '{"title": "T", "person": "P", "__proto__": {"polluted": true}}');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ message: 'Malformed JSON in request body.' });
    });
  });

  describe('bodies that are not a lead object', () => {
    const deep = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
    const tooDeep = {
      message: 'The request body is nested too deeply: at most 64 levels of objects and arrays are allowed.',
    };

    it.each(['v1', 'v2'] as const)('%s: a body nested deeper than 64 levels is 400 with a clear message', async (v) => {
      const res = await post(v, `{"title": "T", "person": "P", "extra": ${deep(64)}}`);
      expect({ status: res.statusCode, body: res.json<unknown>() }).toEqual({ status: 400, body: tooDeep });
      const huge = await post(v, '['.repeat(200_000) + ']'.repeat(200_000));
      expect({ status: huge.statusCode, body: huge.json<unknown>() }).toEqual({ status: 400, body: tooDeep });
    });

    it.each(['v1', 'v2'] as const)('%s: 64 levels are accepted', async (version) => {
      const row = await create(version, `{"title": "T", "person": "P", "extra": ${deep(63)}}`);
      expect(row.title).toBe('T');
    });

    it('a too-deep body on a disabled write is still 403 first', async () => {
      const res = await t.app.inject({
        method: 'DELETE',
        url: `/api/v2/leads/00000000-0000-4000-8000-000000000000`,
        headers: { ...apiHeaders('v2', token, tenant.enterpriseId), 'content-type': 'application/json' },
        payload: deep(100),
      });
      expect(res.statusCode).toBe(403);
    });

    it.each<[Version, string, Errors]>([
      ['v2', '[{"title": "T", "person": "P"}]', { title: [required('title')], ...NEITHER_PERSON }],
      ['v2', '"a string"', { title: [required('title')], ...NEITHER_PERSON }],
      ['v2', 'null', { title: [required('title')], ...NEITHER_PERSON }],
      ['v1', '[]', { Title: [required('title')], PersonName: [required('person name')] }],
      ['v1', '42', { Title: [required('title')], PersonName: [required('person name')] }],
    ])('%s: the JSON body %s counts as an empty object', async (version, json, errors) => {
      await expectErrors(version, json, errors);
    });

    it('a body without a content type counts as empty', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers: apiHeaders('v2', token, tenant.enterpriseId),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json<{ errors: Errors }>().errors).toEqual({ title: [required('title')], ...NEITHER_PERSON });
    });
  });

  describe('v1 rules, each with a passing and a failing body', () => {
    const NEITHER: Errors = { Title: [required('title')], PersonName: [required('person name')] };

    it.each<[string, Body, Errors]>([
      ['an empty body', {}, NEITHER],
      ['title and person null', { Title: null, person: null }, NEITHER],
      ['title and person blank', { title: '', PersonName: '  ' }, NEITHER],
      ['the person missing', { Title: 'T' }, { PersonName: [required('person name')] }],
      ['the title missing', { person: 'P' }, { Title: [required('title')] }],
      [
        'the v2 person_name is not a v1 person key',
        { Title: 'T', person_name: 'P' },
        { PersonName: [required('person name')] },
      ],
      ['Title 256', { Title: 'x'.repeat(256), PersonName: 'P' }, { Title: [tooLong('title')] }],
      ['title 256 (reported under Title)', { title: 'x'.repeat(256), person: 'P' }, { Title: [tooLong('title')] }],
      ['PersonName 256', { Title: 'T', PersonName: 'p'.repeat(256) }, { PersonName: [tooLong('person name')] }],
      ['person 256', { Title: 'T', person: 'p'.repeat(256) }, { PersonName: [tooLong('person name')] }],
      ['Title a number', { Title: 5, PersonName: 'P' }, { Title: [mustBeString('title')] }],
      ['person an array', { Title: 'T', person: ['P'] }, { PersonName: [mustBeString('person name')] }],
      [
        'a NUL character in an extra key',
        { Title: 'T', PersonName: 'P', Notes: { text: 'a\u0000b' } },
        { Notes: [unstorable('notes')] },
      ],
    ])('fails: %s', async (_name, body, errors) => {
      await expectErrors('v1', body, errors);
    });

    it.each<[string, Body, Partial<StoredLead>]>([
      ['Title and PersonName', { Title: 'T', PersonName: 'P' }, { title: 'T', person_name: 'P' }],
      ['title and person', { title: 't', person: 'p' }, { title: 't', person_name: 'p' }],
      ['Title and person', { Title: 'T', person: 'p' }, { title: 'T', person_name: 'p' }],
      ['Title 255', { Title: 'x'.repeat(255), PersonName: 'P' }, { title: 'x'.repeat(255) }],
      ['Title null, title given', { Title: null, title: 't', person: 'p' }, { title: 't' }],
      [
        'OrganisationName and Description',
        { Title: 'T', PersonName: 'P', OrganisationName: 'Org', Description: 'D' },
        { organisation_name: 'Org', description: 'D' },
      ],
      [
        'organisation and description',
        { Title: 'T', PersonName: 'P', organisation: 'org', description: 'd' },
        { organisation_name: 'org', description: 'd' },
      ],
    ])('passes: %s', async (_name, body, expected) => {
      const row = await create('v1', body);
      expect(row).toMatchObject({ ...expected, enterprise_id: tenant.enterpriseId });
    });

    it.each<[string, Body, Partial<StoredLead>]>([
      [
        'Title and title',
        { title: 'lower', Title: 'Pascal', PersonName: 'P' },
        { title: 'Pascal', extra_input: { title: 'lower' } },
      ],
      [
        'PersonName and person',
        { Title: 'T', PersonName: 'Pascal', person: 'lower' },
        { person_name: 'Pascal', extra_input: { person: 'lower' } },
      ],
      [
        'OrganisationName and organisation',
        { Title: 'T', PersonName: 'P', organisation: 'lower', OrganisationName: 'Pascal' },
        { organisation_name: 'Pascal', extra_input: { organisation: 'lower' } },
      ],
      [
        'Description and description',
        { Title: 'T', PersonName: 'P', Description: 'Pascal', description: 'lower' },
        { description: 'Pascal', extra_input: { description: 'lower' } },
      ],
    ])('when both casings of %s are sent, PascalCase wins and the other is kept', async (_n, body, exp) => {
      expect(await create('v1', body)).toMatchObject(exp);
    });

    it('stores the known keys in their columns and every other key in extra_input', async () => {
      const extras = {
        Notes: 'Call after 5pm',
        nested: { deep: [1, 'two', { three: true }] },
        PersonId: 99,
        id: '00000000-0000-4000-8000-000000000000',
        team: 'ignored for the enterprise',
        person_name: 'not a v1 key',
        email: 42,
        purchase_price: { amount: 1 },
        organisation: 'o'.repeat(256),
      };
      const row = await create('v1', {
        Title: 'Truck',
        PersonName: 'Pat',
        abn: '51824753556',
        has_abn: true,
        purchase_price_note: null,
        finance_amount: 45000,
        finance_term: '60',
        realestate_owner: 'yes',
        phone: '0400 000 000',
        email_type: 'work',
        ...extras,
      });
      expect(row).toMatchObject({
        title: 'Truck',
        person_name: 'Pat',
        organisation_name: null,
        abn: '51824753556',
        has_abn: true,
        finance_amount: 45000,
        finance_term: '60',
        realestate_owner: 'yes',
        phone: '0400 000 000',
        email_type: 'work',
        email: null,
        purchase_price: null,
        enterprise_id: tenant.enterpriseId,
        extra_input: { ...extras, purchase_price_note: null },
      });
      expect(row.id).not.toBe(extras.id);
    });

    it('a v1 update replaces extra keys it sends and keeps the others', async () => {
      const row = await create('v1', { Title: 'T', PersonName: 'P', Notes: 'first', Colour: 'red' });
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/leads/${row.id}`,
        headers: apiHeaders('v1', token, tenant.enterpriseId),
        payload: { Title: 'T2', PersonName: 'P', Notes: 'second', Size: 'L' },
      });
      expect(res.statusCode).toBe(200);
      expect((await stored(row.id)).extra_input).toEqual({ Notes: 'second', Colour: 'red', Size: 'L' });
    });
  });

  describe('255 vs 256 characters, counted as characters, not bytes', () => {
    const v2Fields: [string, string][] = [
      ['title', 'title'],
      ['person', 'person'],
      ['person_name', 'person name'],
      ['organisation', 'organisation'],
      ['organisation_name', 'organisation name'],
    ];

    it.each(v2Fields)('v2 %s: 255 emoji pass and are stored whole, 256 fail', async (field, fieldLabel) => {
      const body = { title: 'T', person: 'P', [field]: EMOJI_255 };
      const row = await create('v2', body);
      expect([row.title, row.person_name, row.organisation_name]).toContain(EMOJI_255);
      await expectErrors('v2', { title: 'T', person: 'P', [field]: EMOJI_256 }, { [field]: [tooLong(fieldLabel)] });
    });

    it('v2: 255 characters of mixed widths pass; 256 two-byte characters fail', async () => {
      expect((await create('v2', { title: MIXED_255, person: 'P' })).title).toBe(MIXED_255);
      await expectErrors('v2', { title: ACCENT_256, person: 'P' }, { title: [tooLong('title')] });
    });

    it.each<[string, string]>([
      ['Title', 'Title'],
      ['title', 'Title'],
      ['PersonName', 'PersonName'],
      ['person', 'PersonName'],
    ])('v1 %s: 255 emoji pass, 256 fail under %s', async (key, errorKey) => {
      const base = { Title: 'T', PersonName: 'P' };
      const slot = errorKey === 'Title' ? 'Title' : 'PersonName';
      const pass = { ...base, [slot]: undefined, [key]: EMOJI_255 };
      const row = await create('v1', pass);
      expect([row.title, row.person_name]).toContain(EMOJI_255);
      const fail = { ...base, [slot]: undefined, [key]: EMOJI_256 };
      await expectErrors('v1', fail, {
        [errorKey]: [tooLong(errorKey === 'Title' ? 'title' : 'person name')],
      });
    });
  });
});
