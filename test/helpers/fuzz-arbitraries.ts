import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { RouteEntry } from '../../src/common/http/route-registry.js';
import type { TenantRecords } from './two-tenants.js';

/** One generated request, ready for `app.inject`. */
export interface FuzzRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly payload: string | undefined;
  /** What the case was built from, for the failure report. */
  readonly label: string;
}

export interface FuzzWorld {
  readonly routes: readonly RouteEntry[];
  readonly own: TenantRecords;
  readonly foreign: TenantRecords;
  readonly ownToken: string;
  readonly foreignToken: string;
}

/** Percent-encoding that also takes lone surrogates (as the bytes Node would send). */
function pct(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'QUERY', 'SEARCH', 'TRACE', 'PROPFIND'];

/** Text of every kind: ASCII, any code point, lone surrogates (binary units), control characters. */
export const anyText = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: 'binary', maxLength }),
    fc.constantFrom('', ' ', '\u0000', '\ud800', 'null', 'undefined', 'NaN', '-1', '0x10', '1e309', '__proto__'),
  );

/** Keys that attack prototypes, collide in casing, or are plain noise. */
const hostileKey = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', '__Proto__', 'Constructor') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'title',
      'Title',
      'TITLE',
      'person',
      'PersonName',
      'person_name',
      'personName',
      'Person_Name',
      'organisation',
      'OrganisationName',
      'email',
      'Email',
      'purchase_price',
      'PurchasePrice',
      'team',
      'enterprise_id',
      'EnterpriseID',
      'id',
      'ID',
      'password',
      'event',
      'data',
      'documentId',
      'envelopeId',
    ),
  },
  { weight: 3, arbitrary: anyText(20) },
);

/** Scalars as clients really send them wrong: numbers as strings, huge strings, odd numbers. */
const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  anyText(60),
  fc.integer().map(String),
  fc.double().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.integer({ min: 200, max: 5_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 250, max: 300 }).map((n) => '\u{1F600}'.repeat(n)),
);

/** JSON values built from hostile keys and scalars, nested a few levels. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 5, arbitrary: hostileScalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 2, arbitrary: hostileObject(tie('value')) },
  ),
})).value;

function hostileObject(values: fc.Arbitrary<unknown>): fc.Arbitrary<Record<string, unknown>> {
  // Entries, not an object literal: `__proto__` must stay an own key of the JSON text.
  return fc
    .array(fc.tuple(hostileKey, values), { maxLength: 8 })
    .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);
}

/** A JSON text: objects, JSON with literal `__proto__` keys, duplicates in several casings, deep nesting. */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: hostileObject(hostileValue).map((o) => JSON.stringify(o)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(hostileKey, hostileScalar), { minLength: 1, maxLength: 6 })
      // Duplicate keys survive only in text: `{"title":"a","Title":"b","title":"c"}`.
      .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":"yes"},"title":"T","person":"P"}',
      '{"constructor":{"prototype":{"polluted":"yes"}},"title":"T","person":"P"}',
      '{"Title":"T","PersonName":"P","__proto__":{"isAdmin":true}}',
      '{"title":"T","person":"P","nested":{"__proto__":{"polluted":"yes"}}}',
      '[{"__proto__":{"polluted":"yes"}}]',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1, max: 300 }), fc.boolean())
      .map(([depth, arrays]) =>
        arrays
          ? `{"title":"T","person":"P","x":${'['.repeat(depth)}${']'.repeat(depth)}}`
          : `{"title":"T","person":"P","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
      ),
  },
);

/** A lead body that may well be valid, so the fuzz also creates and updates leads. */
const leadText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(['title', 'person'], ['Title', 'PersonName'], ['Title', 'person'], ['title', 'person_name']),
    fc.oneof(anyText(30), fc.constant('A lead')),
    fc.oneof(anyText(30), fc.constant('Jane')),
    hostileObject(hostileScalar),
  )
  .map(([[titleKey, personKey], title, person, extra]) =>
    JSON.stringify({ ...extra, [titleKey ?? 'title']: title, [personKey ?? 'person']: person }),
  );

const body: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 8, arbitrary: jsonText },
  { weight: 6, arbitrary: leadText },
  { weight: 2, arbitrary: anyText(80) },
  { weight: 1, arbitrary: fc.constantFrom('{', '{"title":', '{"a":1}{"b":2}', 'nul', '\ufeff{}', '{"a":1,}') },
  // Over the 1 MiB limit (413), and just under it.
  {
    weight: 1,
    arbitrary: fc.constantFrom(1024 * 1024 + 1, 1024 * 1024 - 64).map((n) => `{"title":"${'t'.repeat(n)}"}`),
  },
);

const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 10, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=utf-16',
      'APPLICATION/JSON',
      'text/plain',
      'text/html',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/vnd.api+json',
      'application/octet-stream',
      'application/json-patch+json',
      '*/*',
      ';',
    ),
  },
  { weight: 1, arbitrary: headerValue() },
);

/** A value Node accepts in a header (visible ASCII and spaces), hostile in content. */
function headerValue(maxLength = 60): fc.Arbitrary<string> {
  return fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });
}

/** The first record id of every fixture section of a tenant. */
function firstIds(tenant: TenantRecords): string[] {
  return Object.values(tenant.ids).filter((id): id is string => id !== undefined);
}

function pathValue(world: FuzzWorld): fc.Arbitrary<string> {
  const { own, foreign } = world;
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...firstIds(own), ...firstIds(foreign)) },
    { weight: 2, arbitrary: fc.constant(null).map(() => randomUUID()) },
    { weight: 1, arbitrary: fc.constantFrom(...firstIds(own)).map((id) => id.toUpperCase()) },
    { weight: 3, arbitrary: anyText(40).map(pct) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%E0%A4%A',
        '%ED%A0%80',
        '%C0%AF',
        '..%2F..%2Fetc%2Fpasswd',
        '%00',
        "1'%20OR%20'1'%3D'1",
        'a'.repeat(120),
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
      ),
    },
  );
}

function queryString(): fc.Arbitrary<string> {
  const page = fc.oneof(
    fc.integer({ min: -5, max: 5 }).map(String),
    fc.constantFrom('999999999', '9'.repeat(400), '1.5', '1e3', '0x2', ' 2', '', 'NaN', '-0', '%00', '2%20'),
    anyText(10).map(pct),
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 4, arbitrary: page.map((p) => `?page=${p}`) },
    { weight: 1, arbitrary: fc.tuple(page, page).map(([a, b]) => `?page=${a}&page=${b}`) },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.tuple(
            fc.oneof(fc.constantFrom('__proto__', 'constructor', 'page[]', 'page[a]', 'per_page'), anyText(8)),
            anyText(10),
          ),
          { maxLength: 4 },
        )
        .map((pairs) => `?${pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')}`),
    },
  );
}

function authorization(world: FuzzWorld): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${world.ownToken}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${world.foreignToken}`) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        headerValue().map((v) => `Bearer ${v}`),
        headerValue(),
        fc.constant(`Bearer ${world.ownToken.split('|')[0] ?? ''}|${'x'.repeat(48)}`),
        fc.constant(`bearer ${world.ownToken}`),
        fc.constant(`Bearer ${world.ownToken} extra`),
        fc.constant(`Basic ${Buffer.from('a:b').toString('base64')}`),
      ),
    },
  );
}

function enterprise(world: FuzzWorld): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(world.own.enterpriseId) },
    { weight: 2, arbitrary: fc.constant(world.foreign.enterpriseId) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constant(world.own.enterpriseId.toUpperCase()) },
    { weight: 2, arbitrary: headerValue() },
  );
}

const headerName = fc
  .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'.split('')), minLength: 1, maxLength: 20 })
  .filter((n) => !['host', 'content-length', 'transfer-encoding', 'connection', 'expect', 'upgrade'].includes(n));

/** Any request to any registered route (or none), with hostile parts throughout. */
export function fuzzRequest(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      route: fc.constantFrom(...world.routes),
      otherMethod: fc.option(fc.constantFrom(...METHODS), { freq: 5 }),
      param: pathValue(world),
      trailing: fc.constantFrom('', '', '', '/', '/extra', '//'),
      query: queryString(),
      authorization: authorization(world),
      enterprise: enterprise(world),
      enterpriseHeader: fc.constantFrom('X-Enterprise-Id', 'EnterpriseID', 'x-enterprise-id', 'enterpriseid'),
      contentType: contentType,
      accept: fc.option(
        fc.oneof(fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'), headerValue()),
      ),
      requestId: fc.option(headerValue(200)),
      extraHeaders: fc.dictionary(headerName, headerValue(), { maxKeys: 3 }),
      body: fc.oneof(
        { weight: 30, arbitrary: body },
        // Real credentials now and then: a login that succeeds issues a token (counted by the suite).
        {
          weight: 1,
          arbitrary: fc.constant(JSON.stringify({ email: world.own.user.email, password: world.own.user.password })),
        },
      ),
    })
    .map((c) => {
      const method = c.otherMethod ?? c.route.method;
      const url = `${c.route.url.replace(/:[A-Za-z]+|\*$/g, c.param)}${c.trailing}${c.query}`;
      const headers: Record<string, string> = { ...c.extraHeaders };
      if (c.authorization !== undefined) headers.authorization = c.authorization;
      if (c.enterprise !== undefined) headers[c.enterpriseHeader] = c.enterprise;
      if (c.contentType !== undefined && c.body !== undefined) headers['content-type'] = c.contentType;
      if (c.accept !== null) headers.accept = c.accept;
      if (c.requestId !== null) headers['x-request-id'] = c.requestId;
      const payload = ['GET', 'HEAD'].includes(method) ? undefined : c.body;
      const size = payload === undefined ? 'no body' : `${payload.length} characters of body`;
      return { method, url, headers, payload, label: `${method} ${url.slice(0, 300)} (${size})` };
    });
}

/** A JSON Schema as the served documents give it (request bodies, after `$ref`s are resolved). */
export type JsonSchema = { [key: string]: unknown };

/** One version's writes of a writable resource, as its descriptor and the served document describe them. */
export interface WriteTarget {
  readonly version: 'v1' | 'v2';
  /** The resource's path segment: POST /api/{version}/{path}, PUT /api/{version}/{path}/{id}. */
  readonly path: string;
  /** The create body's schema (its `properties`, in `allOf`/`anyOf` parts too, name the fields). */
  readonly input: JsonSchema;
  /** The body fields that refer to another record, with the section (resource path) they point at. */
  readonly references: Readonly<Record<string, string>>;
}

/** Every property a body schema names, with its own schema, and the names it requires anywhere. */
export function schemaProperties(schema: JsonSchema): { properties: Map<string, JsonSchema>; required: Set<string> } {
  const out = new Map<string, JsonSchema>();
  const required = new Set<string>();
  const stack: unknown[] = [schema];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (Array.isArray(item)) stack.push(...(item as unknown[]));
    else if (typeof item === 'object' && item !== null) {
      const node = item as JsonSchema;
      for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
        if (!out.has(name)) out.set(name, property);
      }
      if (Array.isArray(node.required)) for (const name of node.required as string[]) required.add(name);
      for (const part of [node.allOf, node.anyOf, node.oneOf]) if (part !== undefined) stack.push(part);
    }
  }
  return { properties: out, required };
}

/** A value the property's schema would take (often), so many writes pass validation and are stored. */
function plausibleValue(property: JsonSchema): fc.Arbitrary<unknown> {
  if (Array.isArray(property.enum)) return fc.constantFrom(...(property.enum as unknown[]));
  if (property.format === 'email') return fc.oneof(fc.constant('jane@example.com'), anyText(30));
  if (property.format === 'date-time') {
    return fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }).map((ms) => new Date(ms).toISOString());
  }
  const types = ([] as unknown[]).concat(property.type ?? 'string');
  const max = typeof property.maxLength === 'number' ? property.maxLength : 60;
  const options: fc.Arbitrary<unknown>[] = [];
  if (types.includes('string')) {
    options.push(fc.constantFrom('A value', 'Jane'), fc.constantFrom('A value', 'Jane'), anyText(Math.min(max, 30)));
  }
  if (types.includes('number')) options.push(fc.integer());
  if (types.includes('boolean')) options.push(fc.boolean());
  if (types.includes('null')) options.push(fc.constant(null));
  return options.length > 0 ? fc.oneof(...options) : hostileScalar;
}

/**
 * A body of the target's fields (the required ones always there, up to four others; mostly
 * plausible values) and hostile extra keys.
 */
function plausibleBody(
  input: JsonSchema,
  reference: (name: string) => fc.Arbitrary<unknown> | undefined,
): fc.Arbitrary<string> {
  const { properties, required } = schemaProperties(input);
  const value = (name: string, property: JsonSchema) => reference(name) ?? plausibleValue(property);
  const fields = Object.fromEntries(
    [...properties].map(([name, property]) => [
      name,
      fc.oneof({ weight: 6, arbitrary: value(name, property) }, { weight: 1, arbitrary: hostileScalar }),
    ]),
  );
  const optional = [...properties.keys()].filter((name) => !required.has(name));
  const some = fc
    .subarray(optional, { maxLength: Math.min(4, optional.length) })
    .chain((chosen) => fc.record(Object.fromEntries(chosen.map((name) => [name, fields[name] ?? hostileScalar]))));
  return fc
    .tuple(
      some,
      // Required fields take values their schema allows, so many bodies pass and are stored.
      fc.record(
        Object.fromEntries(
          [...required].map((name) => {
            const property = properties.get(name);
            return [name, property ? value(name, property) : fc.constant('A value')];
          }),
        ),
      ),
      fc.oneof(fc.constant({}), hostileObject(hostileScalar)),
    )
    .map(([some, requiredValues, extra]) => JSON.stringify({ ...extra, ...some, ...requiredValues }));
}

/**
 * A value for a field that refers to a record of `section`: mostly the own enterprise's record (so
 * writes with a real reference are stored), else the other enterprise's or an unknown id.
 */
function referenceValue(world: FuzzWorld, section: string | undefined): fc.Arbitrary<unknown> | undefined {
  if (section === undefined) return undefined;
  const own = world.own.ids[section];
  const foreign = world.foreign.ids[section];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(own ?? randomUUID()) },
    { weight: 1, arbitrary: fc.constant(foreign ?? randomUUID()) },
    { weight: 1, arbitrary: fc.uuid() },
  );
}

/**
 * Creates and updates of every writable resource in every version it writes in (the suite derives
 * the targets from the descriptors): most cases reach validation and many are stored.
 */
export function writeRequest(world: FuzzWorld, targets: readonly WriteTarget[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .constantFrom(...targets)
    .chain((target) =>
      fc.record({
        target: fc.constant(target),
        update: fc.boolean(),
        id: fc.oneof(
          fc.constant(world.own.ids[target.path] ?? randomUUID()),
          fc.constant(world.foreign.ids[target.path] ?? randomUUID()),
          pathValue(world),
        ),
        body: fc.oneof(
          {
            weight: 3,
            arbitrary: plausibleBody(target.input, (name) => referenceValue(world, target.references[name])),
          },
          { weight: 2, arbitrary: jsonText },
        ),
        contentType: fc.oneof(
          { weight: 8, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: contentType },
        ),
      }),
    )
    .map((c) => {
      const { version, path } = c.target;
      const url = c.update ? `/api/${version}/${path}/${c.id}` : `/api/${version}/${path}`;
      const headers: Record<string, string> = {
        authorization: `Bearer ${world.ownToken}`,
        [version === 'v1' ? 'EnterpriseID' : 'X-Enterprise-Id']: world.own.enterpriseId,
        accept: 'application/json',
      };
      if (c.contentType !== undefined) headers['content-type'] = c.contentType;
      const method = c.update ? 'PUT' : 'POST';
      return { method, url, headers, payload: c.body, label: `${method} ${url} (${c.body.length} characters of body)` };
    });
}
