import 'reflect-metadata';
import { describe, expect, it } from '@jest/globals';
import { getMetadataArgsStorage } from 'typeorm';
import { SnakeNamingStrategy } from '../../src/database/snake-naming.strategy.js';
import { schemaOf } from '../../src/openapi/resource-schemas.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';

const naming = new SnakeNamingStrategy();
const PROPERTIES = 'swagger/apiModelProperties';

/** Whether the response schema documents `field` as able to be null, or undefined when it has no such field. */
function documentedNullable(schema: object, field: string): boolean | undefined {
  const options = Reflect.getMetadata(PROPERTIES, schema, field) as { nullable?: boolean } | undefined;
  return options === undefined ? undefined : options.nullable === true;
}

/**
 * A record answers the columns of its row under their own names, so a column the database lets be
 * NULL may be answered null: its response schema must say so, or a client generated from the
 * documents breaks on the first null (and the answers would not match their own documents).
 * Derived from the descriptors: a new resource is held to it without edits.
 */
describe('the response schemas of the resources', () => {
  it('document as nullable every nullable column they answer under its own name', () => {
    const problems: string[] = [];
    const checked: string[] = [];
    for (const resource of TENANT_RESOURCES) {
      const schema = schemaOf(resource).prototype as object;
      const columns = getMetadataArgsStorage().columns.filter((column) => column.target === resource.entity);
      for (const column of columns) {
        if (column.options.nullable !== true) continue;
        const field = naming.columnName(column.propertyName, column.options.name, []);
        const nullable = documentedNullable(schema, field);
        if (nullable !== undefined) checked.push(`${resource.path}.${field}`);
        if (nullable === false) {
          problems.push(
            `${resource.path}.${field}: the column may be NULL but ${schemaOf(resource).name} documents it as always ` +
              `present; give its field { nullable: true }`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
    // The schemas' metadata is read where @nestjs/swagger keeps it: the check is not vacuous.
    expect(checked).toEqual(
      expect.arrayContaining(['applications.contract_number', 'people.birthday', 'leads.description']),
    );
  });

  it('can fail: a nullable column documented as always present is named', () => {
    class Example {}
    Reflect.defineMetadata(PROPERTIES, { type: 'string' }, Example.prototype, 'note');
    expect(documentedNullable(Example.prototype, 'note')).toBe(false);
    expect(documentedNullable(Example.prototype, 'other')).toBeUndefined();
  });
});
