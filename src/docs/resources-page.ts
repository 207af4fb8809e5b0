import { ENTITY_SECTIONS, type EntitySection, type SectionField } from '../cli/import/entity-sections.js';
import { writableIn, type TenantResource } from '../resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../resources/tenant-resources.js';

/** Where the page lives in the repository, and the command that writes it. */
export const RESOURCES_PAGE = 'docs/resources.md';
export const RESOURCES_PAGE_COMMAND = 'npm run docs:resources';

function methods(resource: TenantResource): string {
  const [v1, v2] = [writableIn(resource, 'v1'), writableIn(resource, 'v2')];
  if (!v1 && !v2) return 'GET';
  if (v1 && v2) return 'GET, POST (create), PUT (update)';
  return `GET; POST (create), PUT (update) in ${v1 ? 'v1' : 'v2'} only`;
}

function resourceRow(resource: TenantResource): string {
  const { path } = resource;
  const list = resource.rows.paged ? 'paged, 100 a page' : 'every record at once';
  const feed = resource.changeType ? `\`${resource.changeType}\`` : 'not in the feed';
  const section =
    resource.importSection === 'entity' ? `[derived](#${path})` : `[written by hand](import-format.md#${path})`;
  return `| ${resource.tag.name} | \`/${path}\`, \`/${path}/{id}\` | ${methods(resource)} | ${list} | ${feed} | ${section} |`;
}

function fieldNotes(field: SectionField): string {
  const notes: string[] = [];
  notes.push(field.required ? 'required' : field.default === undefined ? 'optional (null)' : 'optional');
  if (field.default !== undefined) notes.push(`default \`${field.default}\``);
  if (field.values) notes.push(`one of ${field.values.map((value) => `\`${value}\``).join(', ')}`);
  if (field.reference) {
    notes.push(
      field.reference === 'enterprises'
        ? 'an enterprise of the file or the database'
        : `the id of a record of \`${field.reference}\` of the same enterprise`,
    );
  }
  if (field.after.length > 0) notes.push(`after ${field.after.map((name) => `\`${name}\``).join(', ')}`);
  return notes.join('; ');
}

function sectionText(section: EntitySection): string[] {
  return [
    `### \`${section.name}\``,
    '',
    '| Field | Type | |',
    '|---|---|---|',
    '| `id` | id | required |',
    ...section.fields.map((field) => `| \`${field.name}\` | ${field.type} | ${fieldNotes(field)} |`),
    '',
  ];
}

/**
 * The page of every resource of an enterprise and of the import sections derived from their
 * tables, written from the descriptors: the guides link to it instead of keeping lists of their own.
 */
export function resourcesPage(): string {
  return [
    '# Resources',
    '',
    `<!-- Written by \`${RESOURCES_PAGE_COMMAND}\` from the resource descriptors: edit those, not this page. -->`,
    '',
    'Every resource of an enterprise. Each has a list and a retrieve in both versions (`/api/v1`',
    'with PascalCase keys and the `EnterpriseID` header, `/api/v2` with snake_case keys and',
    '`X-Enterprise-Id`); the [API guide](api-guide.md) says how to call them, the OpenAPI documents',
    '(`/docs`) give every field. A write the table does not list answers 403.',
    '',
    '| Resource | Paths (under `/api/v2`) | Methods | List | Change-feed type | Import section |',
    '|---|---|---|---|---|---|',
    ...TENANT_RESOURCES.map(resourceRow),
    '',
    '## Import sections derived from their tables',
    '',
    "These sections of the [import file](import-format.md) have one field per column of the resource's",
    'table, named as the API names it; `created_at` and `updated_at` are optional as in every section.',
    'A reference must name a record of the file or of the database; a problem is reported at its',
    'field before anything is written.',
    '',
    ...ENTITY_SECTIONS.flatMap(sectionText),
  ].join('\n');
}
