import type { Type } from '@nestjs/common';
import { ApplicationSchema } from '../applications/application.schema.js';
import { LeadSchema } from '../leads/lead.schema.js';
import { OrganisationSchema } from '../organisations/organisation.schema.js';
import { PersonSchema } from '../people/person.schema.js';
import { QuoteSchema } from '../quotes/quote.schema.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { UserSchema } from '../users/user.schema.js';

/**
 * The response schema class of each resource, by its path (v1's is derived from it by the
 * casing). Kept here, beside the documents, not in the descriptors: schema classes load
 * @nestjs/swagger, half a second of every CLI command's start, and the CLI reads and writes the
 * same resources without documenting a route.
 */
const SCHEMAS: ReadonlyMap<string, Type> = new Map<string, Type>([
  ['users', UserSchema],
  ['leads', LeadSchema],
  ['people', PersonSchema],
  ['organisations', OrganisationSchema],
  ['applications', ApplicationSchema],
  ['quotes', QuoteSchema],
]);

/** The resource's response schema class. */
export function schemaOf(resource: Pick<TenantResource, 'path'>): Type {
  const schema = SCHEMAS.get(resource.path);
  if (!schema)
    throw new Error(`No response schema for the resource ${resource.path} (src/openapi/resource-schemas.ts)`);
  return schema;
}
