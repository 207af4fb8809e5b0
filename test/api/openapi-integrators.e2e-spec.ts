import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiVersion } from '../../src/common/http/api-version.js';
import { DEMO_CREDENTIALS, DEMO_ENTERPRISE_ID } from '../../src/demo/demo-document.js';
import { seedDemo } from '../../src/demo/seed-demo.js';
import type { JsonObject, OpenApiDocument } from '../../src/openapi/openapi-documents.js';
import { apiHeaders, loginToken } from '../helpers/fixtures.js';
import { completeDocuments, servedDocuments } from '../helpers/openapi-contract.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const VERSIONS: readonly ApiVersion[] = ['v1', 'v2'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Internal references an integrator cannot follow: rule numbers and specification sections. */
const INTERNAL_REFERENCE = /\bR\d{1,2}\b|\bspec(ification)?\s*(section\s*)?\d|\bsection\s+\d|\u00a7/iu;

interface Operation {
  path: string;
  method: string;
  operation: JsonObject;
}

function operations(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** Every string of the document, with where it is. */
function strings(node: unknown, at = ''): { at: string; text: string }[] {
  if (typeof node === 'string') return [{ at, text: node }];
  if (Array.isArray(node)) return node.flatMap((item, i) => strings(item, `${at}/${i}`));
  if (typeof node === 'object' && node !== null)
    return Object.entries(node).flatMap(([key, value]) => [
      ...strings(key, `${at}/<key>`),
      ...strings(value, `${at}/${key}`),
    ]);
  return [];
}

function isAlwaysForbidden(operation: JsonObject): boolean {
  return typeof operation['x-always-forbidden'] === 'string';
}

describe('OpenAPI documents for integrators (issue 20)', () => {
  let t: TestApp;
  let served: Record<ApiVersion, OpenApiDocument>;
  let complete: Record<ApiVersion, OpenApiDocument>;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    await seedDemo(t.dataSource, t.cipher);
    served = await servedDocuments(t.app.inject.bind(t.app));
    complete = completeDocuments(t.app);
    const demo = DEMO_CREDENTIALS[0];
    token = await loginToken(t.app, demo.email, demo.password);
  });
  afterAll(async () => {
    await t.close();
  });

  it('the pattern finds what it must (so the next test can pass only for a clean document)', () => {
    const citations = [
      'newest first (R7).', // rule-citation example
      'A lead (spec 2.4).', // rule-citation example
      'see section 6', // rule-citation example
      'R11', // rule-citation example
      'Specification 4.3', // rule-citation example
    ];
    for (const text of citations) expect(text).toMatch(INTERNAL_REFERENCE);
    for (const text of ['RATE_LIMIT_PER_MINUTE', 'HMAC-SHA256', 'Rule', 'v2', 'X-Request-Id', 'R2D2x'])
      expect(text).not.toMatch(INTERNAL_REFERENCE);
  });

  it.each(VERSIONS)('%s cites no rule number or specification section anywhere', (version) => {
    const found = strings(served[version]).filter((s) => INTERNAL_REFERENCE.test(s.text));
    expect(found).toEqual([]);
  });

  it.each(VERSIONS)('%s lists no route that always answers 403, and describes them once', (version) => {
    const listed = operations(served[version]);
    expect(listed.filter((o) => isAlwaysForbidden(o.operation))).toEqual([]);
    expect(listed.map((o) => o.operation.summary).filter((s) => /not available|disabled/i.test(String(s)))).toEqual([]);
    const forbidden = operations(complete[version]).filter((o) => isAlwaysForbidden(o.operation));
    expect(forbidden.length).toBeGreaterThan(50);
    const description = String((served[version].info as JsonObject).description);
    for (const { path } of forbidden) expect(description).toContain(`\`${path}\``);
    expect(description).toContain(`\`/api/${version}/register\``);
    expect(description.match(/Not available/g)).toHaveLength(1);
  });

  it.each(VERSIONS)('%s serves exactly the complete description without the always-403 routes', (version) => {
    const key = (o: Operation) => `${o.method} ${o.path}`;
    const expected = operations(complete[version]).filter((o) => !isAlwaysForbidden(o.operation));
    expect(operations(served[version]).map(key)).toEqual(expected.map(key));
    for (const o of expected) expect(served[version].paths[o.path]?.[o.method]).toEqual(o.operation);
    const schemas = (d: OpenApiDocument) => (d.components as { schemas: Record<string, unknown> }).schemas;
    for (const [name, value] of Object.entries(schemas(served[version])))
      expect(schemas(complete[version])[name]).toEqual(value);
  });

  it.each(VERSIONS)(
    '%s: every always-403 route answers 403 with a message to an authorised caller',
    async (version) => {
      // createTestApp's contract check holds each answer to the complete description too.
      const forbidden = operations(complete[version]).filter((o) => isAlwaysForbidden(o.operation));
      for (const { path, method, operation } of forbidden) {
        const url = path.replace('{id}', '00000000-0000-4000-8000-000000000000');
        const res = await t.app.inject({
          method: method.toUpperCase() as 'POST',
          url,
          headers: apiHeaders(version, token, DEMO_ENTERPRISE_ID),
          ...(method === 'get' ? {} : { payload: {} }),
        });
        expect({ route: `${method} ${path}`, status: res.statusCode }).toEqual({
          route: `${method} ${path}`,
          status: 403,
        });
        expect(res.json()).toEqual({ message: operation['x-always-forbidden'] });
      }
    },
  );

  it.each(VERSIONS)('%s: every error answer has a JSON body with its schema', (version) => {
    const document = served[version];
    const responses = (document.components as { responses: Record<string, JsonObject> }).responses;
    const missing: string[] = [];
    for (const { path, method, operation } of operations(document)) {
      for (const [status, declared] of Object.entries(operation.responses as Record<string, JsonObject>)) {
        if (Number(status) < 400) continue;
        const ref = typeof declared.$ref === 'string' ? declared.$ref.split('/').pop() : undefined;
        const response = ref === undefined ? declared : responses[ref];
        const schema = (response?.content as Record<string, JsonObject> | undefined)?.['application/json']?.schema;
        if (schema === undefined) missing.push(`${method} ${path} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(VERSIONS)('%s: the enterprise header is an apiKey scheme required with the token', (version) => {
    const document = served[version];
    const schemes = (document.components as { securitySchemes: Record<string, JsonObject> }).securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['bearer', 'enterprise']);
    expect(schemes.enterprise).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id',
    });
    const byId = new Map(operations(document).map((o) => [o.operation.operationId, o.operation]));
    for (const id of ['listPeople', 'getLead', 'createLead', 'listChanges'])
      expect(byId.get(id)?.security).toEqual([{ bearer: [], enterprise: [] }]);
    for (const id of ['listEnterprises', 'logout']) expect(byId.get(id)?.security).toEqual([{ bearer: [] }]);
    // No operation asks for the header as a parameter as well: Authorize is the one place for it.
    const headerName = String(schemes.enterprise?.name).toLowerCase();
    for (const { operation } of operations(document)) {
      const parameters = (operation.parameters ?? []) as JsonObject[];
      expect(parameters.filter((p) => String(p.name).toLowerCase() === headerName)).toEqual([]);
    }
  });

  it.each(VERSIONS)('%s: the login example is the demo user, and it logs in', async (version) => {
    const login = served[version].paths[`/api/${version}/login`]?.post;
    const content = (login?.requestBody as { content: Record<string, JsonObject> }).content['application/json'];
    const examples = Object.values(content?.examples as Record<string, { value: JsonObject }>);
    const value = examples[0]?.value;
    expect(value).toEqual({ email: 'demo@example.com', password: 'demo-password' });
    const res = await t.app.inject({ method: 'POST', url: `/api/${version}/login`, payload: value });
    expect(res.statusCode).toBe(200);
  });
});
