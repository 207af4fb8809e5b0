import { getMetadataArgsStorage } from 'typeorm';
import { SnakeNamingStrategy } from './snake-naming.strategy.js';

const naming = new SnakeNamingStrategy();

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM keys metadata by the class itself
type EntityClass = Function;

/** The database column of each property an entity declares with a column decorator. */
function columnNames(entity: EntityClass): Map<string, string> {
  const names = new Map<string, string>();
  for (const column of getMetadataArgsStorage().columns) {
    if (column.target !== entity) continue;
    names.set(column.propertyName, naming.columnName(column.propertyName, column.options.name, []));
  }
  if (names.size === 0) throw new Error(`${entity.name} declares no columns: is it a TypeORM entity?`);
  return names;
}

/**
 * The SELECT list of these entity properties, as the naming strategy maps them (`alias.column`
 * when an alias is given). The entity is the one place a column is declared; a property that is
 * not a column fails here, at start-up, not in a query.
 */
export function columnsOf<E>(
  entity: abstract new () => E,
  properties: readonly (keyof E & string)[],
  alias?: string,
): string {
  const names = columnNames(entity);
  return properties
    .map((property) => {
      const name = names.get(property);
      if (!name) throw new Error(`${entity.name}.${property} is not a column`);
      return alias ? `${alias}.${name}` : name;
    })
    .join(', ');
}

/** The database name of every column the entity declares, in declaration order. */
export function columnNamesOf(entity: EntityClass): string[] {
  return [...columnNames(entity).values()];
}

/** Every column the entity declares, in declaration order. */
export function allColumnsOf(entity: abstract new () => unknown, alias?: string): string {
  return [...columnNames(entity).values()].map((name) => (alias ? `${alias}.${name}` : name)).join(', ');
}
