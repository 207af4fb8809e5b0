import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiVersion } from '../../src/common/http/api-version.js';
import type { JsonObject, OpenApiDocument } from '../../src/openapi/openapi-documents.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import {
  completeDocuments,
  ContractViolation,
  OpenApiContract,
  servedDocuments,
  type ObservedResponse,
} from '../helpers/openapi-contract.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const VERSIONS: readonly ApiVersion[] = ['v1', 'v2'];

function operations(document: OpenApiDocument): { path: string; method: string; operation: JsonObject }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
}

function schema(document: OpenApiDocument, name: string): JsonObject {
  const schemas = (document.components as { schemas: Record<string, JsonObject> }).schemas;
  const found = schemas[name];
  if (!found) throw new Error(`no schema ${name}`);
  return found;
}

describe('OpenAPI documents and interactive docs (issue 8)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let token: string;
  let documents: Record<ApiVersion, OpenApiDocument>;

  beforeAll(async () => {
    // A limit of 2 a minute: the documents and the docs page must not count against it.
    t = await createTestApp({ RATE_LIMIT_PER_MINUTE: '2' });
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(t, fixture.doc);
    token = await loginToken(t.app, tenant.user.email, tenant.user.password);
    documents = await servedDocuments(t.app.inject.bind(t.app));
  });
  afterAll(async () => {
    await t.close();
  });

  describe('the documents', () => {
    it.each(VERSIONS)('/api/%s/openapi.json is OpenAPI 3.1 JSON, public and not rate limited', async (version) => {
      for (let i = 0; i < 5; i++) {
        const res = await t.app.inject({ method: 'GET', url: `/api/${version}/openapi.json` });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        expect(res.json<OpenApiDocument>().openapi).toBe('3.1.0');
      }
    });

    it.each(VERSIONS)('%s lists its own operations, the webhooks and health, each named once', (version) => {
      const other = version === 'v1' ? 'v2' : 'v1';
      const paths = Object.keys(documents[version].paths);
      expect(paths.filter((p) => p.startsWith(`/api/${other}/`))).toEqual([]);
      expect(paths).toEqual(
        expect.arrayContaining([
          `/api/${version}/login`,
          `/api/${version}/leads/{id}`,
          '/api/webhooks/signprovider-a',
          '/api/webhooks/signprovider-b',
          '/health',
        ]),
      );
      const ids = operations(documents[version]).map((o) => o.operation.operationId);
      expect(new Set(ids).size).toBe(ids.length);
    });

    it.each(VERSIONS)(
      '%s: bearer security except where @Public, and the enterprise header of the version',
      (version) => {
        const document = documents[version];
        // The enterprise header is a security scheme, required with the token where it applies.
        const scheme = (document.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes
          .enterprise;
        expect(scheme).toMatchObject({
          type: 'apiKey',
          name: version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id',
          in: 'header',
        });
        const byId = new Map(operations(document).map((o) => [o.operation.operationId, o.operation]));
        expect(byId.get('login')?.security).toEqual([]);
        expect(byId.get('receiveSignProviderA')?.security).toEqual([]);
        expect(byId.get('listEnterprises')?.security).toEqual([{ bearer: [] }]);
        expect(byId.get('listEnterprises')?.parameters).toBeUndefined();
        expect(byId.get('listLeads')?.security).toEqual([{ bearer: [], enterprise: [] }]);
        // Rate-limited routes document 429 with its headers; health is not limited.
        expect(byId.get('listLeads')?.responses).toHaveProperty('429');
        expect(byId.get('health')?.responses).not.toHaveProperty('429');
      },
    );

    it.each(VERSIONS)(
      '%s documents the 503 of an unreachable database, with Retry-After, where one is read',
      (version) => {
        const byId = new Map(operations(documents[version]).map((o) => [o.operation.operationId, o.operation]));
        for (const id of ['login', 'listLeads', 'createLead', 'receiveSignProviderA']) {
          expect(byId.get(id)?.responses).toHaveProperty('503', { $ref: '#/components/responses/ServiceUnavailable' });
        }
        const unavailable = (documents[version].components as { responses: Record<string, JsonObject> }).responses
          .ServiceUnavailable;
        expect(unavailable?.headers).toHaveProperty('Retry-After', { $ref: '#/components/headers/Retry-After' });
        // Health declares its own 503 (a health report, not an error).
        expect(byId.get('health')?.responses).not.toHaveProperty('503.$ref');
      },
    );

    it('v1 records are the PascalCase of v2: nested rows and the enterprise keep lowercase timestamps', () => {
      const keys = (version: ApiVersion, name: string) =>
        Object.keys(schema(documents[version], name).properties ?? {});
      expect(keys('v2', 'Lead')).toEqual([
        'id',
        'enterprise_id',
        'title',
        'description',
        'person_name',
        'organisation_name',
        'created_at',
        'updated_at',
      ]);
      expect(keys('v1', 'Lead')).toEqual([
        'ID',
        'EnterpriseID',
        'Title',
        'Description',
        'PersonName',
        'OrganisationName',
        'CreatedAt',
        'UpdatedAt',
      ]);
      expect(keys('v1', 'Enterprise')).toEqual(['ID', 'Name', 'IsActive', 'created_at', 'updated_at']);
      expect(keys('v1', 'PhoneNumber')).toEqual(['ID', 'Type', 'Number', 'IsPrimary', 'created_at', 'updated_at']);
      expect(keys('v1', 'Application')).toEqual(expect.arrayContaining(['CrmDealID', 'CreatedAt']));
      expect(keys('v1', 'Person')).toEqual(expect.arrayContaining(['PhoneNumbers', 'Financials', 'DependentsAges']));
      // Envelopes and errors are the same in both versions.
      expect(schema(documents.v1, 'LeadPage')).toEqual(schema(documents.v2, 'LeadPage'));
      expect(schema(documents.v1, 'ValidationError')).toEqual(schema(documents.v2, 'ValidationError'));
    });

    it('request bodies are documented from the validation rules', () => {
      // The fields, then one of the person fields as two object shapes (typed as a union by generators).
      const [fields, persons] = schema(documents.v2, 'LeadInput').allOf as JsonObject[];
      const leadInput = fields as JsonObject;
      expect(leadInput.required).toEqual(['title']);
      expect((persons?.anyOf as JsonObject[]).map((s) => s.required)).toEqual([['person'], ['person_name']]);
      expect(leadInput.properties).toMatchObject({
        title: { type: 'string', maxLength: 255 },
        person_name: { type: ['string', 'null'], maxLength: 255 },
        email: { type: ['string', 'null'], format: 'email' },
        purchase_price: { type: ['string', 'number', 'boolean', 'null'] },
      });
      expect(leadInput.properties).not.toHaveProperty('team');
      expect(schema(documents.v2, 'LoginInput')).toMatchObject({
        required: ['email', 'password'],
        properties: { email: { type: 'string', format: 'email', minLength: 1 } },
      });
      const [v1Fields, ...v1Pairs] = schema(documents.v1, 'LeadInputV1').allOf as JsonObject[];
      expect(v1Pairs.map((p) => (p.anyOf as JsonObject[]).map((s) => s.required))).toEqual([
        [['Title'], ['title']],
        [['PersonName'], ['person']],
      ]);
      expect(v1Fields?.additionalProperties).toBe(true);
    });

    it.each(VERSIONS)(
      'every documented %s operation is a route that answers as documented without a token',
      async (v) => {
        // The contract check of createTestApp validates each answer against its operation.
        let n = 0;
        for (const { path, method } of operations(documents[v])) {
          const url = path.replace('{id}', '00000000-0000-4000-8000-000000000000');
          // A client address of its own each time, so the limit of 2 never answers instead.
          const remoteAddress = `10.${v === 'v1' ? 1 : 2}.${Math.floor(++n / 250)}.${n % 250}`;
          const res = await t.app.inject({ method: method.toUpperCase() as 'GET', url, remoteAddress });
          expect(res.statusCode).not.toBe(404);
        }
      },
    );
  });

  describe('the contract check', () => {
    let contract: OpenApiContract;
    let lead: ObservedResponse;
    const url = '/api/v2/leads';

    beforeAll(async () => {
      contract = new OpenApiContract(completeDocuments(t.app));
      const created = await t.app.inject({
        method: 'POST',
        url,
        headers: apiHeaders('v2', token, tenant.enterpriseId),
        payload: { title: 'Checked', person: 'Pat' },
      });
      expect(created.statusCode).toBe(201);
      lead = { statusCode: created.statusCode, headers: created.headers, body: created.body };
    });

    const withBody = (change: (data: JsonObject) => void): ObservedResponse => {
      const body = JSON.parse(lead.body) as { data: JsonObject };
      change(body.data);
      return { ...lead, body: JSON.stringify(body) };
    };

    it('accepts what the API answered', () => {
      expect(() => contract.check('POST', url, lead)).not.toThrow();
    });

    it.each([
      ['an undocumented field', withBodyChange((d) => (d.extra = 1)), /must NOT have additional properties/],
      ['a field of another type', withBodyChange((d) => (d.title = 5)), /body\/data\/title must be string/],
      ['a missing field', withBodyChange((d) => delete d.updated_at), /must have required property 'updated_at'/],
      ['a timestamp without milliseconds', withBodyChange((d) => (d.created_at = '2026-01-01T00:00:00Z')), /pattern/],
    ])('rejects %s', (_name, make, message) => {
      expect(() => contract.check('POST', url, make(withBody))).toThrow(message);
    });

    it('rejects an undocumented status', () => {
      expect(() => contract.check('POST', url, { ...lead, statusCode: 200 })).toThrow(/status 200 is not documented/);
    });

    it('rejects a missing rate-limit header and an undocumented one', () => {
      const headers = { ...lead.headers };
      delete headers['x-ratelimit-remaining'];
      expect(() => contract.check('POST', url, { ...lead, headers })).toThrow(/X-RateLimit-Remaining is missing/);
      const health = { statusCode: 200, headers: { 'content-type': 'application/json', 'x-ratelimit-limit': '2' } };
      expect(() =>
        contract.check('GET', '/health', { ...health, body: JSON.stringify({ status: 'ok', database: 'up' }) }),
      ).toThrow(/x-ratelimit-limit is sent but not documented/);
    });

    it('rejects an answer on an undocumented path or method that is not the 404 or 405 of the router', () => {
      const error = { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x' }) };
      expect(() => contract.check('GET', '/api/v2/nothing', { statusCode: 200, ...error })).toThrow(ContractViolation);
      expect(() => contract.check('GET', '/api/v2/nothing', { statusCode: 404, ...error })).not.toThrow();
      const allow = (value: string) => ({ ...error, statusCode: 405, headers: { ...error.headers, allow: value } });
      expect(() => contract.check('PATCH', '/api/v2/leads/x', allow('DELETE, GET, PUT'))).not.toThrow();
      expect(() => contract.check('PATCH', '/api/v2/leads/x', allow('GET, PUT'))).toThrow(/Allow/);
    });

    it('treats a trailing slash as the router does, and lets body errors answer before routing', () => {
      const error = { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'x' }) };
      const allow = { ...error, statusCode: 405, headers: { ...error.headers, allow: 'DELETE, GET, PUT' } };
      expect(() => contract.check('PATCH', '/api/v2/leads/x/', allow)).not.toThrow();
      expect(() => contract.check('TRACE', '/api/v2/leads/x', { ...error, statusCode: 415 }, true)).not.toThrow();
      expect(() => contract.check('TRACE', '/api/v2/leads/x', { ...error, statusCode: 415 })).toThrow(/only a 405/);
      expect(() => contract.check('PROPFIND', '/api/v2/leads/x', { ...error, statusCode: 403 })).toThrow(/only a 405/);
      expect(() => contract.check('PATCH', '/api/v2/leads/x', { ...error, statusCode: 403 })).toThrow(/only a 405/);
      // Register answers every method; methods no OpenAPI operation can name are 4xx errors.
      expect(() => contract.check('PROPFIND', '/api/v2/register', { ...error, statusCode: 403 })).not.toThrow();
      expect(() => contract.check('PROPFIND', '/api/v2/register', { ...error, statusCode: 200 })).toThrow();
    });
  });

  describe('/docs', () => {
    it('serves Swagger UI for both documents, public and not rate limited', async () => {
      for (let i = 0; i < 4; i++) {
        const page = await t.app.inject({ method: 'GET', url: '/docs' });
        expect(page.statusCode).toBe(200);
        expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(page.headers['x-ratelimit-limit']).toBeUndefined();
        expect(page.body).toContain('/docs/swagger-ui-bundle.js');
      }
      const init = await t.app.inject({ method: 'GET', url: '/docs/swagger-initializer.js' });
      expect(init.body).toContain('/api/v1/openapi.json');
      expect(init.body).toContain('/api/v2/openapi.json');
      expect(init.body).toContain('validatorUrl: null');
      for (const [file, type] of [
        ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
        ['swagger-ui.css', 'text/css; charset=utf-8'],
      ]) {
        const res = await t.app.inject({ method: 'GET', url: `/docs/${file}` });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe(type);
      }
    });

    it('serves no other file', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/docs/package.json' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ message: 'The route /docs/package.json could not be found.' });
    });
  });
});

/** A changed copy of the created lead's answer (defined here so it.each can name it). */
function withBodyChange(change: (data: JsonObject) => void) {
  return (withBody: (change: (data: JsonObject) => void) => ObservedResponse) => withBody(change);
}
