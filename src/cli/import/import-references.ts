import { getMetadataArgsStorage } from 'typeorm';
import { SnakeNamingStrategy } from '../../database/snake-naming.strategy.js';
import type { TenantResource } from '../../resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../resources/tenant-resources.js';

const naming = new SnakeNamingStrategy();

/** A column of a tenant table that names a record the import file must resolve. */
export interface ImportReference {
  /** Column in the section, e.g. `application_id`. */
  readonly column: string;
  /** The section (and table) it points to. */
  readonly section: string;
  /** Singular noun in the message: `no application has the id ...`. */
  readonly noun: string;
  /**
   * The referenced record must belong to the same enterprise as the referring one. Either way
   * the target must be a tenant table (its enterprise_id tells that the record exists).
   */
  readonly sameEnterprise: boolean;
}
const ENTERPRISE_PROPERTY = 'enterpriseId';

/** The entity a foreign key points at: `() => Person` (the form this project writes), or the class. */
function referencedEntity(type: unknown): unknown {
  return typeof type === 'function' && type.prototype === undefined ? (type as () => unknown)() : type;
}

/**
 * The references the importer checks for a resource's section, read from the foreign keys its
 * entity declares (the enterprise's apart, which every section checks): the entity is the one
 * place a reference is written. A composite key over `enterprise_id` (`@ForeignKey(() => Person,
 * ['enterpriseId', 'personId'], ['enterpriseId', 'id'])`) is a reference to a record of the same
 * enterprise; a reference to a table that is not a resource's fails here, at start-up.
 */
export function importReferencesOf(resource: TenantResource): ImportReference[] {
  const references: ImportReference[] = [];
  for (const key of getMetadataArgsStorage().foreignKeys) {
    if (key.target !== resource.entity) continue;
    const properties = key.columnNames ?? (key.propertyName === undefined ? [] : [key.propertyName]);
    const own = properties.filter((property) => property !== ENTERPRISE_PROPERTY);
    const [property] = own;
    if (property === undefined) continue;
    if (own.length > 1) throw new Error(`${resource.path}: a reference over ${own.join(', ')} cannot be imported`);
    const targets = key.referencedColumnNames ?? ['id'];
    const pointsAt = (own: string): string | undefined => targets[properties.indexOf(own)];
    const sameEnterprise = properties.includes(ENTERPRISE_PROPERTY);
    if (pointsAt(property) !== 'id' || (sameEnterprise && pointsAt(ENTERPRISE_PROPERTY) !== ENTERPRISE_PROPERTY)) {
      throw new Error(
        `${resource.path}: a reference must point at the record's id (and enterpriseId at enterpriseId) to be imported`,
      );
    }
    const referenced = referencedEntity(key.type);
    const target = TENANT_RESOURCES.find((candidate) => candidate.entity === referenced);
    if (!target) {
      throw new Error(
        `${resource.path}.${naming.columnName(property, undefined, [])}: refers to a table that is not a resource's; ` +
          'the importer checks references to resources only (is its descriptor listed in TENANT_RESOURCES, src/resources/tenant-resources.ts?)',
      );
    }
    references.push({
      column: naming.columnName(property, undefined, []),
      section: target.path,
      noun: target.model.toLowerCase(),
      sameEnterprise,
    });
  }
  return references;
}
