import type { INestApplication, Type } from '@nestjs/common';
import { AccessMessages } from '../common/access/required-access.js';
import { routeAccessOf, type RouteAccess } from '../common/access/route-access.js';
import { outboundWebhooks } from './outbound-webhooks.js';
import { preciseSchemas } from './precise-schemas.js';
import { DiscoveryService, ModulesContainer, Reflector } from '@nestjs/core';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { IS_PUBLIC } from '../common/access/public.decorator.js';
import { pascalKey } from '../common/casing/pascal-case.js';
import type { RecordCasing } from '../common/casing/v1-casing.js';
import type { ApiVersion } from '../common/http/api-version.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { isRateLimited } from '../common/rate-limit/api-throttler.guard.js';
import { ENTERPRISE_HEADER_NAME } from '../common/tenancy/enterprise-header.js';
import { WITHOUT_ENTERPRISE } from '../common/tenancy/without-enterprise.decorator.js';
import { WEBHOOK_PATH_PREFIX } from '../webhooks/raw-webhook-body.js';
import { OPERATION_ID } from './api-operation.decorator.js';
import { v1CasingOf } from './record-schema.decorator.js';
import { ALWAYS_FORBIDDEN, IDEMPOTENT_WRITE, NO_DATABASE } from './api-responses.decorator.js';
import { IDEMPOTENT_REPLAYED_HEADER } from '../idempotency/idempotency-key.js';
import { DEMO_ENTERPRISE_ID } from '../demo/demo-document.js';
import { ETAG_EXTENSION } from '../changes/conditional-read.js';
import { TENANT_RESOURCES } from '../resources/tenant-resources.js';

export type JsonObject = { [key: string]: unknown };
export type OpenApiDocument = JsonObject & { paths: Record<string, Record<string, JsonObject>> };

export const API_VERSIONS: readonly ApiVersion[] = ['v1', 'v2'];
/** The HTTP methods documented; Fastify's automatic HEAD and @All's extra methods are not. */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const WITH_BODY = new Set(['post', 'put', 'patch', 'delete']);
const ERROR_REF = { $ref: '#/components/schemas/Error' };
/** Name of the enterprise header's security scheme. */
export const ENTERPRISE_SCHEME = 'enterprise';

export const TAGS: readonly { name: string; description: string }[] = [
  {
    name: 'Authentication',
    description: 'Log in for a bearer token, log out to revoke it. Registration is disabled.',
  },
  { name: 'Enterprises', description: 'The enterprises (tenants) the caller belongs to. No enterprise header.' },
  ...TENANT_RESOURCES.map((resource) => resource.tag),
  {
    name: 'Changes',
    description: 'What changed in the enterprise since a cursor: keep a copy in sync without re-reading every list.',
  },
  {
    name: 'Webhook endpoints',
    description: "Your integration's URLs the service pushes every change to, signed as Standard Webhooks (v2 only).",
  },
  {
    name: 'Tokens',
    description: "The enterprise's integration tokens, for its admins: see what each may do, revoke (v2 only).",
  },
  {
    name: 'Audit events',
    description: "Who did what in the enterprise, with which token, from where: for the enterprise's admins (v2 only).",
  },
  { name: 'Webhooks', description: 'Called by the signature providers; the signature is the authentication.' },
  { name: 'Health', description: 'For load balancers and operators. Not rate limited.' },
];

const COMMON_DESCRIPTION = [
  '- Lead writes take an optional `Idempotency-Key` header: a retry with the same key and body answers the first',
  '  answer again (`Idempotent-Replayed: true`) instead of writing twice.',
  '- Every answer carries `X-Request-Id`: the one the request sent when it is 1 to 128 characters of letters,',
  '  digits, `.`, `_` and `-`, else an id the service made. Quote it when asking about a request.',
];

/**
 * Which answers carry the rate-limit headers: those of requests that were counted. What is
 * answered before a request is counted is listed, so a client knows which answers lack them.
 */
const RATE_LIMIT_DESCRIPTION = [
  '- Rate limit: every answer of a counted request carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`; 429',
  '  adds `Retry-After` and `X-RateLimit-Reset`. Answered before the request is counted, so without them: an',
  '  unknown path (404), a method the path does not have (405), a body that is too large (413), not JSON (415)',
  '  or malformed (400), a request the HTTP parser refuses (400, 408, 431), a 500 or 503 while the token is',
  '  looked up, too many large bodies at once (503), and the health checks, `/docs` and these documents.',
];

const DESCRIPTION: Record<ApiVersion, string> = {
  v2: [
    'The Finance Intake API, version 2: snake_case keys.',
    '',
    '- Log in with `POST /api/v2/login` and send `Authorization: Bearer <access_token>` on every other call.',
    '- Send the enterprise header `X-Enterprise-Id` (an enterprise id from `GET /api/v2/enterprises`) on every call',
    '  except login, register, logout and the enterprise calls.',
    '- Request body keys are snake-cased before validation (`PersonName` and `personName` arrive as `person_name`).',
    '- Every error body has a `message`; validation failures add `errors`, field name to messages.',
    ...RATE_LIMIT_DESCRIPTION,
    '- A known path called with a method it does not have answers 405 with `Allow`; an unknown path 404.',
    ...COMMON_DESCRIPTION,
  ].join('\n'),
  v1: [
    'The Finance Intake API, version 1: PascalCase keys (`ID`, `EnterpriseID`, `CreatedAt`); nested rows and the',
    'enterprise keep lowercase `created_at` and `updated_at`.',
    '',
    '- Log in with `POST /api/v1/login` and send `Authorization: Bearer <access_token>` on every other call.',
    '- Send the enterprise header `EnterpriseID` (an enterprise id from `GET /api/v1/enterprises`) on every call',
    '  except login, register, logout and the enterprise calls.',
    '- Request bodies are not normalised: the lead keys are listed with the casings v1 accepts.',
    '- Every error body has a `message`; validation failures add `errors`, field name to messages.',
    ...RATE_LIMIT_DESCRIPTION,
    '- A known path called with a method it does not have answers 405 with `Allow`; an unknown path 404.',
    ...COMMON_DESCRIPTION,
  ].join('\n'),
};

/**
 * A header holding a whole number. Typed as the string it arrives as (a client reads headers as
 * text; a generator would otherwise promise a number), its digits given by the pattern.
 */
const DIGITS = { type: 'string', pattern: '^[0-9]+$' } as const;

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': {
    description: 'Requests allowed per 60-second window (`RATE_LIMIT_PER_MINUTE`), a whole number of at least 1.',
    schema: DIGITS,
  },
  'X-RateLimit-Remaining': {
    description: 'Requests left in the current window, a whole number.',
    schema: DIGITS,
  },
};
const RETRY_HEADERS = {
  'Retry-After': { description: 'Seconds until the next accepted request, a whole number.', schema: DIGITS },
  'X-RateLimit-Reset': {
    description: 'Unix time (seconds) of the next accepted request.',
    schema: DIGITS,
  },
};

const REPLAYED = {
  description:
    '`true` when this is the remembered answer of an earlier request with the same `Idempotency-Key`: nothing was ' +
    'written this time. Absent on the answer of the request that wrote.',
  schema: { type: 'string', enum: ['true'] },
};

/** Statuses answered before the guards run (Fastify's body parsing, a failing token lookup). */
const BEFORE_GUARDS = new Set(['400', '413', '415', '500', '503']);

interface RouteFacts {
  isPublic: boolean;
  withoutEnterprise: boolean;
  /** What a limited token, or a member who is not an admin, needs for it. */
  access: RouteAccess;
  rateLimited: boolean;
  operationId: string;
  resource: string;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(parent: JsonObject, key: string): JsonObject {
  let value = parent[key];
  if (!isObject(value)) {
    value = {};
    parent[key] = value;
  }
  return value as JsonObject;
}

/** `PeopleController` -> `People`; `V2LeadsController` -> `Leads`. */
function resourceName(controllerName: string): string {
  return controllerName.replace(/^V\d+(?=[A-Z])/, '').replace(/Controller$/, '');
}

function versionsOf(path: string): readonly ApiVersion[] {
  for (const version of API_VERSIONS) if (path.startsWith(`/api/${version}/`)) return [version];
  return API_VERSIONS;
}

export interface BuildOptions {
  /** The server URL the documents name; `/` when unset. */
  appUrl?: string;
  /**
   * Keep the routes that always answer 403 as operations (marked `x-always-forbidden`): the
   * complete description the contract check holds every answer to. The served documents leave
   * them out, so client generators make no method nobody can call.
   */
  includeAlwaysForbidden?: boolean;
}

interface ForbiddenRoute {
  path: string;
  method: string;
  message: string;
  /** What the guards check before the route refuses. */
  checked: 'nothing' | 'token' | 'token and enterprise header';
}

/**
 * The OpenAPI 3.1 documents of v1 and v2, generated from the code: @nestjs/swagger reads the
 * routes and their response declarations; the parts every route shares are added here from
 * the same metadata the global guards read, so the documents cannot promise a check the code
 * does not make. v1 is derived from v2 by the casing step's renaming.
 */
export function buildOpenApiDocuments(
  app: INestApplication,
  options: BuildOptions = {},
): Record<ApiVersion, OpenApiDocument> {
  const raw = SwaggerModule.createDocument(app, new DocumentBuilder().build(), {
    operationIdFactory: (controller, method) => `${controller}#${method}#`,
    autoTagControllers: false,
  }) as unknown as OpenApiDocument;
  const controllers = new Map<string, Type>();
  for (const wrapper of new DiscoveryService(app.get(ModulesContainer)).getControllers()) {
    if (wrapper.metatype) controllers.set(wrapper.metatype.name, wrapper.metatype as Type);
  }
  const reflector = new Reflector();
  const schemas = objectAt(objectAt(raw, 'components'), 'schemas');

  const docs: Record<ApiVersion, { paths: Record<string, JsonObject> }> = { v1: { paths: {} }, v2: { paths: {} } };
  const forbidden: Record<ApiVersion, ForbiddenRoute[]> = { v1: [], v2: [] };
  for (const [path, item] of Object.entries(raw.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const facts = routeFacts(operation, method, controllers, reflector);
      for (const version of versionsOf(path)) {
        const message = operation[ALWAYS_FORBIDDEN];
        if (typeof message === 'string') {
          const checked = facts.isPublic
            ? 'nothing'
            : facts.withoutEnterprise
              ? 'token'
              : 'token and enterprise header';
          forbidden[version].push({ path, method, message, checked });
          if (!options.includeAlwaysForbidden) continue;
        }
        const target = objectAt(docs[version].paths, path);
        target[method] = completeOperation(structuredClone(operation), facts, method, path, version);
      }
    }
  }

  const result = {} as Record<ApiVersion, OpenApiDocument>;
  for (const version of API_VERSIONS) {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      info: {
        title: `Finance Intake API ${version}`,
        version: version === 'v1' ? '1.0.0' : '2.0.0',
        description: `${DESCRIPTION[version]}\n\n${describeForbidden(forbidden[version])}`,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: options.appUrl ?? '/', description: 'This service' }],
      tags: [],
      paths: sortPaths(docs[version].paths) as OpenApiDocument['paths'],
      components: {
        schemas: structuredClone(schemas),
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: `The \`access_token\` of \`POST /api/${version}/login\`.`,
          },
          [ENTERPRISE_SCHEME]: enterpriseScheme(version),
        },
        // Required wherever they are referenced: the answers the rate-limit guard has seen.
        headers: Object.fromEntries(
          Object.entries({ ...RATE_LIMIT_HEADERS, ...RETRY_HEADERS }).map(([name, h]) => [
            name,
            { ...h, required: true },
          ]),
        ),
        responses: responseComponents(version),
      },
    };
    // Outbound webhooks are v2's (their events carry v2 records).
    if (version === 'v2') document.webhooks = outboundWebhooks();
    closeResponseObjects(document, liftRequestSchemas(document));
    if (version === 'v1') caseV1Schemas(document);
    toOpenApi31(document);
    preciseSchemas(document.components as Record<string, unknown>, version);
    pruneComponents(document);
    const used = new Set(Object.values(document.paths).flatMap((i) => Object.values(i).flatMap((o) => tagsOf(o))));
    document.tags = TAGS.filter((tag) => used.has(tag.name));
    result[version] = document;
  }
  return result;
}

/**
 * The routes that always answer 403, described once for the document's description instead of
 * as operations. Grouped by message and methods: one line per kind of refusal.
 */
function describeForbidden(routes: readonly ForbiddenRoute[]): string {
  const groups = new Map<string, { methods: string[]; message: string; checked: string; paths: string[] }>();
  const byPath = new Map<string, ForbiddenRoute[]>();
  for (const route of routes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
  for (const [path, list] of byPath) {
    const first = list[0];
    if (!first) continue;
    const methods = list.map((r) => r.method.toUpperCase());
    const key = `${first.message}|${methods.join()}|${first.checked}`;
    const group = groups.get(key) ?? { methods, message: first.message, checked: first.checked, paths: [] };
    group.paths.push(`\`${path}\``);
    groups.set(key, group);
  }
  const lines = [...groups.values()].map((g) => {
    const methods = g.methods.length === METHODS.length ? 'Every method' : listed(g.methods);
    const when =
      g.checked === 'nothing'
        ? 'with or without a token'
        : `once the ${g.checked} ${g.checked === 'token' ? 'is' : 'are'} accepted`;
    return `- ${methods} on ${listed(g.paths)}: 403 \`{"message": "${g.message}"}\`, ${when}.`;
  });
  return [
    '**Not available.** These routes exist but always refuse, so they are not listed as operations:',
    '',
    ...lines,
  ].join('\n');
}

function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1] ?? ''}`;
}

function tagsOf(operation: JsonObject): string[] {
  return Array.isArray(operation.tags) ? (operation.tags as string[]) : [];
}

function routeFacts(
  operation: JsonObject,
  method: string,
  controllers: Map<string, Type>,
  reflector: Reflector,
): RouteFacts {
  const [controllerName = '', methodKey = '', allSuffix = ''] = String(operation.operationId).split('#');
  const controller = controllers.get(controllerName);
  const prototype = controller?.prototype as Record<string, unknown> | undefined;
  const handler = prototype?.[methodKey] as ((...args: unknown[]) => unknown) | undefined;
  if (!controller || !handler) throw new Error(`OpenAPI: no handler for ${String(operation.operationId)}`);
  const targets = [handler, controller];
  const named = reflector.get<string | undefined>(OPERATION_ID, handler);
  if (!named) throw new Error(`OpenAPI: ${controllerName}.${methodKey} has no @Operation()`);
  const resource = resourceName(controllerName);
  const id = named.replace('{resource}', resource);
  return {
    isPublic: reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets) ?? false,
    withoutEnterprise: reflector.getAllAndOverride<boolean>(WITHOUT_ENTERPRISE, targets) ?? false,
    access: routeAccessOf(reflector, handler, controller),
    rateLimited: isRateLimited(reflector, targets),
    // @All routes are one handler for every method: the method names the operation.
    operationId: allSuffix ? `${id}${pascalKey(method)}` : id,
    resource,
  };
}

interface StandardResponse {
  /** Name under components.responses. */
  name: string;
  status: string;
  description: string;
}

/** The answers the guards and Fastify give on every route they apply to, per version. */
function standardResponses(version: ApiVersion): Record<string, StandardResponse> {
  const list: StandardResponse[] = [
    {
      name: 'Unauthenticated',
      status: '401',
      description: `Missing or invalid bearer token: \`${ErrorMessages.unauthenticated}\``,
    },
    {
      name: 'EnterpriseForbidden',
      status: '403',
      description:
        `The \`${ENTERPRISE_HEADER_NAME[version]}\` header is missing (\`${ErrorMessages.enterpriseHeaderRequired(version)}\`), ` +
        `or is not the id of an enterprise the caller belongs to (\`${ErrorMessages.forbidden}\`).`,
    },
    { name: 'MalformedJson', status: '400', description: `Malformed JSON: \`${ErrorMessages.malformedJson}\`` },
    {
      name: 'PayloadTooLarge',
      status: '413',
      description: `The body is larger than 1 MiB: \`${ErrorMessages.payloadTooLarge}\``,
    },
    {
      name: 'UnsupportedMediaType',
      status: '415',
      description: `The body is not JSON: \`${ErrorMessages.unsupportedMediaType}\``,
    },
    {
      name: 'TooManyRequests',
      status: '429',
      description: `Rate limit exceeded: \`${ErrorMessages.tooManyAttempts}\``,
    },
    {
      name: 'ServiceUnavailable',
      status: '503',
      description:
        `The database cannot be reached or is too slow to answer now: \`${ErrorMessages.serviceUnavailable}\`, ` +
        `with \`Retry-After\`. Nothing was written; the request may be sent again.`,
    },
    {
      name: 'ServerError',
      status: '500',
      description: `Unexpected failure: \`${ErrorMessages.serverError}\` (never internals).`,
    },
  ];
  return Object.fromEntries(list.map((r) => [r.name, r]));
}

/** The 403s of limited tokens and of members who are not admins, when the route has any. */
function scopeForbidden(facts: RouteFacts): StandardResponse | undefined {
  const { access, withoutEnterprise } = facts;
  const reasons: string[] = [];
  if (!withoutEnterprise)
    reasons.push(`the token is bound to other enterprises (\`${AccessMessages.tokenNotForEnterprise}\`)`);
  if (access.ability.kind === 'ability') {
    reasons.push(
      `the token is limited and lacks \`${access.ability.ability}\` (\`${AccessMessages.tokenCannot(access.ability)}\`)`,
    );
  } else if (access.ability.kind === 'unscoped') {
    reasons.push(`the token is limited (\`${AccessMessages.tokenCannot(access.ability)}\`)`);
  }
  if (access.adminOnly) {
    reasons.push(
      `the caller is a member, not an admin, of the enterprise (\`${AccessMessages.adminOnly(access.ability)}\`)`,
    );
  }
  if (reasons.length === 0) return undefined;
  return { name: 'ScopeForbidden', status: '403', description: `Not allowed: ${listed(reasons)}.` };
}

function rateLimitHeaders(status: string): JsonObject {
  const headers: JsonObject = {};
  for (const name of Object.keys(RATE_LIMIT_HEADERS)) {
    headers[name] = BEFORE_GUARDS.has(status)
      ? { ...RATE_LIMIT_HEADERS[name as keyof typeof RATE_LIMIT_HEADERS], required: false }
      : { $ref: `#/components/headers/${name}` };
  }
  if (status === '429') {
    for (const name of Object.keys(RETRY_HEADERS)) headers[name] = { $ref: `#/components/headers/${name}` };
  }
  if (status === '503') headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
  return headers;
}

/** components.responses of a version: the standard answers, with their rate-limit headers. */
function responseComponents(version: ApiVersion): JsonObject {
  return Object.fromEntries(
    Object.values(standardResponses(version)).map((r) => [
      r.name,
      {
        description: r.description,
        headers: rateLimitHeaders(r.status),
        content: { 'application/json': { schema: ERROR_REF } },
      },
    ]),
  );
}

function completeOperation(
  operation: JsonObject,
  facts: RouteFacts,
  method: string,
  path: string,
  version: ApiVersion,
): JsonObject {
  operation.operationId = facts.operationId;
  for (const key of ['summary', 'description'] as const) {
    if (typeof operation[key] === 'string') operation[key] = operation[key].replaceAll('{resource}', facts.resource);
  }
  // Both schemes of a requirement apply together: the token and the enterprise header.
  operation.security = facts.isPublic
    ? []
    : facts.withoutEnterprise
      ? [{ bearer: [] }]
      : [{ bearer: [], [ENTERPRISE_SCHEME]: [] }];
  const responses = objectAt(operation, 'responses');
  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as JsonObject[]) : [];
  const standard = standardResponses(version);
  const inline = (description: string): JsonObject => ({
    description,
    content: { 'application/json': { schema: ERROR_REF } },
  });
  /** A standard answer by name, or a route's own (never referenced: its text is the route's). */
  const add = (given: string | StandardResponse): void => {
    const own = typeof given !== 'string';
    const response = own ? given : standard[given];
    if (!response) return;
    let existing = responses[response.status];
    if (own && isObject(existing) && typeof existing.$ref === 'string') {
      // A referenced standard answer is copied in, so this route's reason can join it.
      const referenced = standard[existing.$ref.split('/').at(-1) ?? ''];
      existing = responses[response.status] = inline(referenced?.description ?? '');
    }
    if (isObject(existing)) {
      // The route declares this status for reasons of its own: one answer, both reasons.
      existing.description = `${String(existing.description)}\n\n${response.description}`;
    } else if (!own && (facts.rateLimited || BEFORE_GUARDS.has(response.status))) {
      responses[response.status] = { $ref: `#/components/responses/${response.name}` };
    } else {
      responses[response.status] = {
        description: response.description,
        content: { 'application/json': { schema: ERROR_REF } },
      };
    }
  };
  if (!facts.isPublic) {
    add('Unauthenticated');
    if (!facts.withoutEnterprise) add('EnterpriseForbidden');
    const scope = scopeForbidden(facts);
    if (scope) add(scope);
  }
  for (const name of path.match(/\{[^}]+\}/g) ?? []) {
    const param = name.slice(1, -1);
    if (!parameters.some((p) => p.in === 'path' && p.name === param)) {
      parameters.push({ name: param, in: 'path', required: true, schema: { type: 'string' } });
    }
  }
  if (WITH_BODY.has(method)) {
    // Webhook bodies are kept as bytes whatever their type: only their size can fail early.
    if (!path.startsWith(WEBHOOK_PATH_PREFIX)) add('MalformedJson');
    add('PayloadTooLarge');
    if (!path.startsWith(WEBHOOK_PATH_PREFIX)) add('UnsupportedMediaType');
  }
  if (facts.rateLimited) add('TooManyRequests');
  // A route declaring its own 503 (health) describes it better than the standard answer does.
  if (operation[NO_DATABASE] === true) delete operation[NO_DATABASE];
  else if (!isObject(responses['503'])) add('ServiceUnavailable');
  add('ServerError');
  if (facts.rateLimited) {
    for (const [status, response] of Object.entries(responses)) {
      if (isObject(response) && response.$ref === undefined) response.headers = rateLimitHeaders(status);
    }
  }
  if (operation[ETAG_EXTENSION] === true) {
    delete operation[ETAG_EXTENSION];
    addConditionalGet(responses, parameters, facts.rateLimited);
  }
  if (operation[IDEMPOTENT_WRITE] === true) {
    delete operation[IDEMPOTENT_WRITE];
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith('2') && isObject(response))
        objectAt(response, 'headers')[IDEMPOTENT_REPLAYED_HEADER] = REPLAYED;
    }
  }
  operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  if (parameters.length > 0) operation.parameters = parameters;
  else delete operation.parameters;
  return operation;
}

const ETAG_HEADER = {
  description:
    'A version of this answer, built from what it depends on. Send it back as `If-None-Match` to get a 304 ' +
    'while nothing changed.',
  schema: { type: 'string' },
};

/** ETag on the 200, the If-None-Match parameter, and the 304 without a body. */
function addConditionalGet(responses: JsonObject, parameters: JsonObject[], rateLimited: boolean): void {
  const ok = responses['200'];
  if (isObject(ok)) ok.headers = { ...(isObject(ok.headers) ? ok.headers : {}), ETag: ETAG_HEADER };
  parameters.push({
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'The `ETag` of an earlier answer: 304 without a body while it still holds.',
    schema: { type: 'string' },
  });
  responses['304'] = {
    description: 'Nothing this answer depends on changed since the `ETag` sent in `If-None-Match`.',
    headers: { ...(rateLimited ? rateLimitHeaders('304') : {}), ETag: { ...ETAG_HEADER, required: true } },
  };
}

/**
 * The enterprise header as a security scheme rather than a parameter of every operation: Swagger
 * UI's Authorize holds it next to the token, and a generated client sets it once.
 */
function enterpriseScheme(version: ApiVersion): JsonObject {
  return {
    type: 'apiKey',
    in: 'header',
    name: ENTERPRISE_HEADER_NAME[version],
    description:
      `The enterprise to act in: an \`id\` from \`GET /api/${version}/enterprises\` (a UUID; on the embedded ` +
      `demo database, \`${DEMO_ENTERPRISE_ID}\`). Required with the token on every operation that lists it.`,
  };
}

function sortPaths(paths: Record<string, JsonObject>): Record<string, JsonObject> {
  const order = (path: string) => (path.startsWith('/api/v') ? 0 : path.startsWith('/api/') ? 1 : 2);
  return Object.fromEntries(Object.entries(paths).sort(([a], [b]) => order(a) - order(b)));
}

/**
 * Request bodies built from validation rules carry a `title`: they become named components.
 * Returns their names.
 */
function liftRequestSchemas(document: OpenApiDocument): Set<string> {
  const names = new Set<string>();
  const schemas = objectAt(objectAt(document, 'components'), 'schemas');
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const body = operation.requestBody;
      if (!isObject(body)) continue;
      for (const media of Object.values(objectAt(body, 'content'))) {
        if (!isObject(media) || !isObject(media.schema) || typeof media.schema.title !== 'string') continue;
        const name = media.schema.title;
        schemas[name] = media.schema;
        names.add(name);
        media.schema = { $ref: `#/components/schemas/${name}` };
      }
    }
  }
  return names;
}

/**
 * Responses are exact (absent values are null, never missing): no undocumented keys. Request
 * bodies say for themselves which keys they accept.
 */
function closeResponseObjects(document: OpenApiDocument, requestSchemas: Set<string>): void {
  const schemas = objectAt(objectAt(document, 'components'), 'schemas');
  for (const [name, schema] of Object.entries(schemas)) {
    if (requestSchemas.has(name)) continue;
    if (isObject(schema) && isObject(schema.properties) && !('additionalProperties' in schema)) {
      schema.additionalProperties = false;
    }
  }
}

/** The v1 shape of every record schema: the v1 renaming (snake_case to PascalCase, `id` to `ID`), exactly as the casing step does it. */
function caseV1Schemas(document: OpenApiDocument): void {
  const schemas = objectAt(objectAt(document, 'components'), 'schemas');
  for (const [name, schema] of Object.entries(schemas)) {
    const casing = v1CasingOf(name);
    if (casing === undefined || !isObject(schema) || !isObject(schema.properties)) continue;
    const key = (k: string) => v1Key(k, casing);
    schema.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [key(k), v]));
    if (Array.isArray(schema.required)) schema.required = (schema.required as string[]).map(key);
  }
}

const TIMESTAMPS = new Set(['created_at', 'updated_at']);

function v1Key(key: string, casing: RecordCasing): string {
  return casing.lowercaseTimestamps && TIMESTAMPS.has(key) ? key : pascalKey(key);
}

/** @nestjs/swagger writes 3.0's `nullable`; 3.1 (JSON Schema 2020-12) says `type: [..., 'null']`. */
function toOpenApi31(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) toOpenApi31(item);
    return;
  }
  if (!isObject(node)) return;
  for (const value of Object.values(node)) toOpenApi31(value);
  if (node.nullable !== true) return;
  delete node.nullable;
  const allOf: unknown = node.allOf;
  const ref: unknown = typeof node.$ref === 'string' ? { $ref: node.$ref } : Array.isArray(allOf) ? allOf[0] : null;
  if (isObject(ref)) {
    // A nullable reference: the record or null.
    const description = node.description;
    for (const key of Object.keys(node)) delete node[key];
    node.oneOf = [ref, { type: 'null' }];
    if (description !== undefined) node.description = description;
  } else if (typeof node.type === 'string') {
    node.type = [node.type, 'null'];
    if (Array.isArray(node.enum)) node.enum = [...(node.enum as unknown[]), null];
  } else {
    throw new Error(`OpenAPI: cannot make ${JSON.stringify(node)} nullable`);
  }
}

/** Drops the components no operation of this version uses (the other version's bodies). */
function pruneComponents(document: OpenApiDocument): void {
  const components = objectAt(document, 'components');
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string' && !used.has(node.$ref)) {
      used.add(node.$ref);
      const [, , kind = '', name = ''] = node.$ref.split('/');
      visit(objectAt(components, kind)[name]);
    }
    for (const value of Object.values(node)) visit(value);
  };
  visit(document.paths);
  visit(document.webhooks);
  for (const kind of ['schemas', 'headers', 'responses']) {
    const group = objectAt(components, kind);
    for (const name of Object.keys(group)) {
      if (!used.has(`#/components/${kind}/${name}`)) delete group[name];
    }
  }
}
