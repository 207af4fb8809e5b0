import type { Type } from '@nestjs/common';
import type { TenantResource } from '../resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../resources/tenant-resources.js';

/**
 * The response schema class of each resource, by its path, loaded once from the descriptors
 * when the documents are first imported (the CLI never imports this module, so never loads them).
 */
const SCHEMAS: ReadonlyMap<string, Type> = new Map(
  await Promise.all(
    TENANT_RESOURCES.map(async (resource) => [resource.path, (await resource.responseSchema()) as Type] as const),
  ),
);

/** The resource's response schema class. */
export function schemaOf(resource: Pick<TenantResource, 'path'>): Type {
  const schema = SCHEMAS.get(resource.path);
  if (!schema) throw new Error(`No response schema for the resource ${resource.path}: is it in TENANT_RESOURCES?`);
  return schema;
}
