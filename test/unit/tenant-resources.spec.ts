import { describe, expect, it } from '@jest/globals';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { ENTITIES } from '../../src/entities.js';
import { allColumnsOf, columnsOf } from '../../src/database/entity-columns.js';
import { Person } from '../../src/people/entities/person.entity.js';
import { schemaOf } from '../../src/openapi/resource-schemas.js';
import { writableAtAll } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

describe('the resource descriptors', () => {
  it('name each path, model, tag and change type once', () => {
    const uses = new Map<string, string[]>();
    for (const resource of TENANT_RESOURCES) {
      for (const [what, value] of [
        ['path', resource.path],
        ['model', resource.model],
        ['tag', resource.tag.name],
        ['change type', resource.changeType],
      ] as const) {
        if (value === undefined) continue;
        const key = `${what} ${value}`;
        uses.set(key, [...(uses.get(key) ?? []), resource.path]);
      }
    }
    const twice = [...uses]
      .filter(([, paths]) => paths.length > 1)
      .map(([key, paths]) => `${key} is used by ${paths.join(' and ')}: give each descriptor its own`);
    expect(twice).toEqual([]);
  });

  it('each have a response schema of their own for the documents', () => {
    const schemas = TENANT_RESOURCES.map((resource) => schemaOf(resource));
    expect(new Set(schemas).size).toBe(TENANT_RESOURCES.length);
    expect(() => schemaOf({ path: 'no-such-resource' })).toThrow(/No response schema/);
  });

  it('name the module of their write controllers exactly when they are writable', async () => {
    const problems: string[] = [];
    for (const resource of TENANT_RESOURCES) {
      if (writableAtAll(resource) && !resource.writeModule)
        problems.push(`${resource.path} is writable: give its descriptor writeModule, the module of its controllers`);
      if (!writableAtAll(resource) && resource.writeModule)
        problems.push(
          `${resource.path} has a writeModule but is read-only: say which versions it writes in (writable)`,
        );
      if (resource.writeModule) expect(typeof (await resource.writeModule())).toBe('function');
    }
    expect(problems).toEqual([]);
  });

  it('read a tenant table named after the path', () => {
    for (const resource of TENANT_RESOURCES) {
      if (resource.rows.table !== undefined) expect(resource.rows.table).toBe(resource.path);
    }
  });

  it('give the change feed a resource for every type it lists', () => {
    const typed = new Set(TENANT_RESOURCES.flatMap((resource) => (resource.changeType ? [resource.changeType] : [])));
    const problems = [
      ...CHANGE_TYPES.filter((type) => !typed.has(type)).map(
        (type) =>
          `change type ${type}: no descriptor of TENANT_RESOURCES has it; list the resource's descriptor in ` +
          `TENANT_RESOURCES (src/resources/tenant-resources.ts), or remove the type from CHANGE_TYPES`,
      ),
      ...[...typed]
        .filter((type) => !CHANGE_TYPES.includes(type))
        .map((type) => `change type ${type}: add it to CHANGE_TYPES (src/changes/change-types.ts)`),
    ];
    expect(problems).toEqual([]);
  });

  it('join the change feed, or say why not', () => {
    const problems = TENANT_RESOURCES.flatMap((resource) => {
      if (resource.changeType !== undefined && resource.noChangeType !== undefined)
        return [`${resource.path}: has both changeType and noChangeType; keep one`];
      if (resource.changeType === undefined && !resource.noChangeType?.trim())
        return [
          `${resource.path}: no changeType. Add its type to CHANGE_TYPES, set changeType and capture its table ` +
            `(addTenantTable(q, '${resource.path}', { capture: { type } })), or say why not in noChangeType`,
        ];
      return [];
    });
    expect(problems).toEqual([]);
  });

  it('put every entity in ENTITIES', () => {
    for (const resource of TENANT_RESOURCES) expect(ENTITIES).toContain(resource.entity);
  });

  it('document their tags', () => {
    for (const { tag } of TENANT_RESOURCES) expect(tag.description.length).toBeGreaterThan(10);
  });
});

describe('column lists from entity metadata', () => {
  it('name the columns as the naming strategy maps them, with the alias', () => {
    expect(columnsOf(Person, ['id', 'firstNameEncrypted', 'createdAt'], 'p')).toBe(
      'p.id, p.first_name_encrypted, p.created_at',
    );
  });

  it('list every declared column in declaration order', () => {
    expect(allColumnsOf(Person).split(', ').slice(0, 4)).toEqual([
      'id',
      'enterprise_id',
      'title',
      'first_name_encrypted',
    ]);
  });

  it('refuse a property that is not a column', () => {
    expect(() => columnsOf(Person, ['firstName'] as never[])).toThrow('Person.firstName is not a column');
  });
});
