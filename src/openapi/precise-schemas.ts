import { CHANGE_TYPES, type ChangeType } from '../changes/change-types.js';
import type { ApiVersion } from '../common/http/api-version.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const capitalised = (type: ChangeType): string => `${type[0]?.toUpperCase() ?? ''}${type.slice(1)}`;

/**
 * A feed entry's `record` depends on its `action`: the record on `upserted`, null on `removed`.
 * `PersonChange` becomes one of `PersonUpserted` and `PersonRemoved`, each with its one action,
 * so a generated client narrows `record` by `type` and `action` (a discriminated union).
 */
function splitChangeEntries(schemas: JsonObject): void {
  for (const type of CHANGE_TYPES) {
    const name = `${capitalised(type)}Change`;
    const entry = schemas[name];
    if (!isObject(entry) || !isObject(entry.properties)) continue;
    const properties = entry.properties;
    const { action, record } = properties;
    if (!isObject(action) || !isObject(record) || !Array.isArray(record.oneOf)) continue;
    const options: unknown[] = record.oneOf;
    const recordRef = options.find((option) => isObject(option) && typeof option.$ref === 'string');
    if (!isObject(recordRef)) continue;
    const variant = (which: 'upserted' | 'removed', recordSchema: JsonObject, description: string): JsonObject => ({
      ...entry,
      description: `A change of a ${type}: ${description}`,
      properties: {
        ...properties,
        action: { ...action, enum: [which] },
        record: { ...recordSchema, description: record.description },
      },
    });
    schemas[`${capitalised(type)}Upserted`] = variant(
      'upserted',
      { $ref: recordRef.$ref },
      'created or changed; `record` is its state now.',
    );
    schemas[`${capitalised(type)}Removed`] = variant(
      'removed',
      { type: 'null' },
      'deleted, or no longer in this enterprise; `record` is null.',
    );
    schemas[name] = {
      description: entry.description,
      oneOf: [ref(`${capitalised(type)}Upserted`), ref(`${capitalised(type)}Removed`)],
    };
  }
}

/** The key a record schema gives `application` in this version (v1 cases it). */
function applicationKey(schema: JsonObject): string | undefined {
  return Object.keys(isObject(schema.properties) ? schema.properties : {}).find(
    (key) => key.toLowerCase() === 'application',
  );
}

/**
 * A quote's `application`: the retrieve (and the change feed, which answers records as the
 * retrieve does) always has the key, null when there is none; the v2 list never has it. So
 * `Quote` requires it, and the v2 list's items are `QuoteListItem`, a quote without it. (v1's
 * list embeds it as its retrieve does.)
 */
function quoteSchemas(schemas: JsonObject, version: ApiVersion): void {
  const quote = schemas.Quote;
  if (!isObject(quote)) return;
  const key = applicationKey(quote);
  if (key === undefined || !Array.isArray(quote.required)) return;
  if (!quote.required.includes(key)) quote.required = [...(quote.required as string[]), key];
  const page = schemas.QuotePage;
  if (version !== 'v2' || !isObject(page) || !isObject(page.properties) || !isObject(page.properties.data)) return;
  const properties = { ...(quote.properties as JsonObject) };
  delete properties[key];
  schemas.QuoteListItem = {
    ...quote,
    description: 'A quote as the v2 list answers it: without its application (the retrieve embeds it).',
    properties,
    required: (quote.required as string[]).filter((name) => name !== key),
  };
  page.properties.data = { ...page.properties.data, items: ref('QuoteListItem') };
}

/**
 * Schemas as exact as the answers, for clients generated from the documents (OpenAPI 3.1 shapes,
 * after the v1 casing): feed entries tied to their action, and the two shapes of a quote.
 */
export function preciseSchemas(components: JsonObject, version: ApiVersion): void {
  if (!isObject(components.schemas)) return;
  splitChangeEntries(components.schemas);
  quoteSchemas(components.schemas, version);
}
