import { DefaultNamingStrategy, type NamingStrategyInterface, type Table } from 'typeorm';

function snake(name: string): string {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/**
 * Entity properties are camelCase in code and snake_case in the schema. Constraints get the
 * names PostgreSQL gives them when a migration leaves them unnamed (`people_pkey`,
 * `quotes_application_id_enterprise_id_fkey`), so the entities describe the migrated schema as
 * it is (test/e2e/entities-match-migrations).
 */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override columnName(propertyName: string, customName: string | undefined, prefixes: string[]): string {
    return snake([...prefixes, customName ?? propertyName].join('_'));
  }

  override relationName(propertyName: string): string {
    return snake(propertyName);
  }

  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return snake(`${relationName}_${referencedColumnName}`);
  }

  override primaryKeyName(tableOrName: Table | string): string {
    return `${this.bareTableName(tableOrName)}_pkey`;
  }

  override foreignKeyName(tableOrName: Table | string, columnNames: string[]): string {
    return `${this.bareTableName(tableOrName)}_${columnNames.join('_')}_fkey`;
  }

  override uniqueConstraintName(tableOrName: Table | string, columnNames: string[]): string {
    return `${this.bareTableName(tableOrName)}_${columnNames.join('_')}_key`;
  }

  /** The table's name without its schema. */
  private bareTableName(tableOrName: Table | string): string {
    return this.getTableName(tableOrName).split('.').pop() ?? '';
  }
}
