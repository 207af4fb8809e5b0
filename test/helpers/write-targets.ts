import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { importReferencesOf } from '../../src/cli/import/import-references.js';
import { pascalKey } from '../../src/common/casing/pascal-case.js';
import { writableIn } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import type { JsonSchema, WriteTarget } from './fuzz-arbitraries.js';

/**
 * Every version's writes of every writable resource, with the create body the served document
 * gives and the body fields that refer to other records (the entity's references, in the version's casing).
 */
export async function writeTargets(app: NestFastifyApplication): Promise<WriteTarget[]> {
  const targets: WriteTarget[] = [];
  for (const version of ['v1', 'v2'] as const) {
    const res = await app.inject({ method: 'GET', url: `/api/${version}/openapi.json` });
    const document = res.json<{ paths: Record<string, Record<string, JsonSchema>>; components: JsonSchema }>();
    const schemas = (document.components.schemas ?? {}) as Record<string, JsonSchema>;
    for (const resource of TENANT_RESOURCES.filter((r) => writableIn(r, version))) {
      const body = document.paths[`/api/${version}/${resource.path}`]?.post?.requestBody as JsonSchema | undefined;
      const schema = (body?.content as Record<string, { schema: JsonSchema }> | undefined)?.['application/json']
        ?.schema;
      const ref = typeof schema?.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
      const input = ref === undefined ? schema : schemas[ref];
      if (!input) throw new Error(`${version} ${resource.path} is writable but its document has no create body`);
      const references = Object.fromEntries(
        importReferencesOf(resource).map((reference) => [
          version === 'v1' ? pascalKey(reference.column) : reference.column,
          reference.section,
        ]),
      );
      targets.push({ version, path: resource.path, input, references });
    }
  }
  return targets;
}
