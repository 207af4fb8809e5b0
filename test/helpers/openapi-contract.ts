import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { apiVersionOf, type ApiVersion } from '../../src/common/http/api-version.js';
import { routePath } from '../../src/common/http/request-path.js';
import { buildOpenApiDocuments, type JsonObject, type OpenApiDocument } from '../../src/openapi/openapi-documents.js';

// ajv-formats is CommonJS: under Node's ESM rules its default import is module.exports.
const addFormats = ajvFormats.default;

/** A response that disagrees with the document of its version. */
export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

export interface ObservedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Headers the API sets that a document must declare wherever they are sent. */
const DECLARED_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'retry-after',
  'x-ratelimit-reset',
  'idempotent-replayed',
  'etag',
];
const NOT_IN_DOCUMENTS = /^\/docs(\/|$)|^\/api\/v[12]\/openapi\.json$/;
/**
 * Answers Fastify gives while reading the body, before any route runs, so they can reach a
 * method the path does not document: malformed JSON, too large, or not JSON at all.
 */
const BEFORE_ROUTING = new Set([400, 413, 415]);
const DESCRIBED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The URL as it reaches the server: a client (fetch, and inject alike) resolves it as a URL first,
 * so `/api/v2/webhook-endpoints/.` is sent as `/api/v2/webhook-endpoints/`, the list's path.
 */
function asSent(url: string): string {
  try {
    const sent = new URL(url.startsWith('//') ? `http://localhost${url}` : url, 'http://localhost');
    return `${sent.pathname}${sent.search}`;
  } catch {
    return url;
  }
}

function pointer(...parts: string[]): string {
  return parts.map((p) => `/${p.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function resolve(document: OpenApiDocument, value: unknown): { node: JsonObject; at: string } | undefined {
  if (!isObject(value)) return undefined;
  if (typeof value.$ref !== 'string') return undefined;
  const at = value.$ref.slice(1);
  let node: unknown = document;
  for (const part of at.split('/').slice(1)) {
    node = isObject(node) ? node[part.replaceAll('~1', '/').replaceAll('~0', '~')] : undefined;
  }
  return isObject(node) ? { node, at } : undefined;
}

/**
 * Checks responses against the OpenAPI document of their version: the path and method must be
 * an operation (else the answer must be the 404 of an unknown path or the 405 of a known one,
 * whose `Allow` lists exactly the documented methods), the status must be documented, the body
 * must match its schema (response objects are closed, so an undocumented field fails), and the
 * rate-limit headers must be declared where they are sent and sent where they are required.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Record<ApiVersion, { template: string; pattern: RegExp }[]>;

  constructor(private readonly documents: Record<ApiVersion, OpenApiDocument>) {
    addFormats(this.ajv);
    this.templates = { v1: [], v2: [] };
    for (const version of ['v1', 'v2'] as const) {
      this.ajv.addSchema(documents[version], version);
      this.templates[version] = Object.keys(documents[version].paths)
        // Literal paths before templated ones, as the router matches them.
        .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
        .map((template) => ({
          template,
          pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        }));
    }
  }

  /** `sentBody`: the request had a body, so Fastify may have refused it before routing. */
  check(method: string, url: string, response: ObservedResponse, sentBody = false): void {
    // The router ignores a trailing slash (ROUTER_OPTIONS), so the document does too.
    const path = routePath(asSent(url));
    if (NOT_IN_DOCUMENTS.test(path)) return;
    const version = apiVersionOf(path) ?? 'v2';
    const document = this.documents[version];
    const where = `${method} ${url} -> ${response.statusCode}`;
    const fail = (problem: string): never => {
      throw new ContractViolation(`${where} disagrees with the ${version} OpenAPI document: ${problem}`);
    };

    // A HEAD answer has the headers of its GET and no body.
    const checkErrorBody = () => {
      if (method.toUpperCase() !== 'HEAD')
        this.checkBody(version, pointer('components', 'schemas', 'Error'), response, fail);
    };
    // A path that cannot be percent-decoded is refused before routing: it names no operation.
    const match = decodable(path) ? this.templates[version].find(({ pattern }) => pattern.test(path)) : undefined;
    if (!match) {
      if (response.statusCode !== 404 && !(sentBody && BEFORE_ROUTING.has(response.statusCode)))
        fail('the path is not documented (only a 404 may answer it)');
      checkErrorBody();
      return;
    }
    const item = document.paths[match.template] ?? {};
    const operationMethod = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const operation = item[operationMethod];
    if (!isObject(operation)) {
      if (sentBody && BEFORE_ROUTING.has(response.statusCode)) {
        checkErrorBody();
        return;
      }
      // The documents describe GET (and so HEAD), POST, PUT, PATCH and DELETE. A route for every
      // method (register: 403 whatever the method; all five documented) also answers the
      // others, which no operation can name: there any 4xx with an error body is accepted.
      const describable = DESCRIBED_METHODS.has(method.toUpperCase());
      const everyMethod = ['get', 'post', 'put', 'patch', 'delete'].every((m) => isObject(item[m]));
      const unnameable = !describable && everyMethod && response.statusCode >= 400 && response.statusCode <= 499;
      if (response.statusCode !== 405 && !unnameable)
        fail(`${method} is not documented for ${match.template} (only a 405 may answer)`);
      const documented = Object.keys(item)
        .map((m) => m.toUpperCase())
        .sort()
        .join(', ');
      if (response.statusCode === 405 && response.headers.allow !== documented) {
        fail(`Allow is "${String(response.headers.allow)}" but the document has ${documented}`);
      }
      checkErrorBody();
      return;
    }

    const responses = isObject(operation.responses) ? operation.responses : {};
    const status = String(response.statusCode);
    let declared = responses[status];
    let at = pointer('paths', match.template, operationMethod, 'responses', status);
    if (!isObject(declared))
      fail(`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
    const referenced = resolve(document, declared);
    if (referenced) ({ node: declared, at } = referenced);
    if (!isObject(declared)) return fail(`the response of ${status} cannot be resolved`);

    this.checkHeaders(document, declared, response, fail);
    const content = isObject(declared.content) ? declared.content : undefined;
    if (content === undefined) {
      if (response.body !== '') fail('the document declares no body, but there is one');
      return;
    }
    if (method.toUpperCase() === 'HEAD') return;
    if (!isObject(content['application/json'])) fail('the documented body is not application/json');
    const type = String(response.headers['content-type'] ?? '');
    if (!type.startsWith('application/json')) fail(`the body is ${type || 'untyped'}, not application/json`);
    this.checkBody(version, `${at}${pointer('content', 'application/json', 'schema')}`, response, fail);
  }

  private checkHeaders(
    document: OpenApiDocument,
    declared: JsonObject,
    response: ObservedResponse,
    fail: (problem: string) => never,
  ): void {
    const headers = isObject(declared.headers) ? declared.headers : {};
    const names = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
    for (const [lower, name] of names) {
      const header = resolve(document, headers[name])?.node ?? headers[name];
      if (!isObject(header)) continue;
      const value = response.headers[lower];
      if (value === undefined) {
        if (header.required === true) fail(`the required header ${name} is missing`);
        continue;
      }
      const schema = isObject(header.schema) ? header.schema : {};
      if (schema.type === 'integer' && !/^\d+$/.test(String(value)))
        fail(`header ${name} is "${String(value)}", not an integer`);
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(String(value)))
        fail(`header ${name} is "${String(value)}", not of the pattern ${schema.pattern}`);
    }
    for (const lower of DECLARED_HEADERS) {
      if (response.headers[lower] !== undefined && !names.has(lower))
        fail(`the header ${lower} is sent but not documented`);
    }
  }

  private checkBody(
    version: ApiVersion,
    at: string,
    response: ObservedResponse,
    fail: (problem: string) => never,
  ): void {
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return fail(`the body is not JSON: ${response.body.slice(0, 200)}`);
    }
    const key = `${version}#${at}`;
    let validate = this.validators.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: key });
      this.validators.set(key, validate);
    }
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `body${e.instancePath} ${e.message ?? ''}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
      fail(`${errors.join('; ')}\nbody: ${response.body.slice(0, 500)}`);
    }
  }
}

type Inject = NestFastifyApplication['inject'];

/** The body as the client reads it, after undoing a Content-Encoding it asked for. */
export function decodedBody(response: {
  headers: ObservedResponse['headers'];
  rawPayload: Buffer;
  body: string;
}): string {
  const encoding = response.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(response.rawPayload).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(response.rawPayload).toString('utf8');
  return response.body;
}
type InjectArgument = Exclude<Parameters<Inject>[0], undefined>;

function requestOf(options: InjectArgument): { method: string; url: string; preflight: boolean; sentBody: boolean } {
  if (typeof options === 'string') return { method: 'GET', url: options, preflight: false, sentBody: false };
  const target = options.url ?? options.path ?? '/';
  const url = typeof target === 'string' ? target : (target.pathname ?? '/');
  const method = (options.method ?? 'GET').toUpperCase();
  const headers = (options.headers ?? {}) as Record<string, unknown>;
  const asksForMethod = Object.keys(headers).some((name) => name.toLowerCase() === 'access-control-request-method');
  // Fastify refuses a QUERY without a Content-Type before routing, body or not (RFC 10008).
  const sentBody = options.payload !== undefined || options.body !== undefined || method === 'QUERY';
  return { method, url, preflight: method === 'OPTIONS' && asksForMethod, sentBody };
}

/** The documents the application serves, fetched without going through the check. */
export async function servedDocuments(inject: Inject): Promise<Record<ApiVersion, OpenApiDocument>> {
  const documents = {} as Record<ApiVersion, OpenApiDocument>;
  for (const version of ['v1', 'v2'] as const) {
    const res = await inject({ method: 'GET', url: `/api/${version}/openapi.json` });
    if (res.statusCode !== 200) throw new Error(`/api/${version}/openapi.json answered ${res.statusCode}`);
    documents[version] = res.json<OpenApiDocument>();
  }
  return documents;
}

/**
 * The documents the contract holds answers to: the served ones plus the routes that always
 * answer 403, which the served documents leave out (marked `x-always-forbidden` here).
 * openapi.e2e-spec.ts proves the served documents are exactly these without those routes.
 */
export function completeDocuments(app: NestFastifyApplication): Record<ApiVersion, OpenApiDocument> {
  return buildOpenApiDocuments(app, { includeAlwaysForbidden: true });
}

/**
 * From now on, every response `app.inject` gives is checked against the complete documents of
 * the app; a disagreement rejects the call, so the test that made it fails.
 */
export function checkResponsesAgainstOpenApi(app: NestFastifyApplication): NestFastifyApplication {
  // The Nest application is a proxy that refuses new properties; its inject is the adapter's.
  const adapter = app.getHttpAdapter() as unknown as { inject: Inject };
  const original: Inject = adapter.inject.bind(adapter);
  let contract: Promise<OpenApiContract> | undefined;
  const checked = (options?: InjectArgument) => {
    if (options === undefined) return original();
    return original(options).then(async (response) => {
      contract ??= Promise.resolve(new OpenApiContract(completeDocuments(app)));
      const { method, url, preflight, sentBody } = requestOf(options);
      // A CORS preflight is answered by the CORS layer for any path; it is no API operation.
      if (!preflight) (await contract).check(method, url, { ...response, body: decodedBody(response) }, sentBody);
      return response;
    });
  };
  adapter.inject = checked as Inject;
  return app;
}
