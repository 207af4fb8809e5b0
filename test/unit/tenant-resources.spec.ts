import { describe, expect, it } from '@jest/globals';
import { CHANGE_TYPES } from '../../src/changes/change-types.js';
import { ENTITIES } from '../../src/entities.js';
import { allColumnsOf, columnsOf } from '../../src/database/entity-columns.js';
import { Person } from '../../src/people/entities/person.entity.js';
import { schemaOf } from '../../src/openapi/resource-schemas.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

describe('the resource descriptors', () => {
  it('name each path, model, tag and change type once', () => {
    for (const key of ['path', 'model', 'changeType'] as const) {
      const values = TENANT_RESOURCES.map((resource) => resource[key]).filter((value) => value !== undefined);
      expect(new Set(values).size).toBe(values.length);
    }
    const tags = TENANT_RESOURCES.map((resource) => resource.tag.name);
    expect(new Set(tags).size).toBe(tags.length);
  });

  it('each have a response schema of their own for the documents', () => {
    const schemas = TENANT_RESOURCES.map((resource) => schemaOf(resource));
    expect(new Set(schemas).size).toBe(TENANT_RESOURCES.length);
    expect(() => schemaOf({ path: 'no-such-resource' })).toThrow(/No response schema/);
  });

  it('read a tenant table named after the path', () => {
    for (const resource of TENANT_RESOURCES) {
      if (resource.rows.table !== undefined) expect(resource.rows.table).toBe(resource.path);
    }
  });

  it('give the change feed a resource for every type it lists', () => {
    const typed = TENANT_RESOURCES.flatMap((resource) => (resource.changeType ? [resource.changeType] : []));
    expect([...typed].sort()).toEqual([...CHANGE_TYPES].sort());
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
