import type { ChangeType } from '../changes/change-types.js';
import type { FieldCipher } from '../crypto/field-cipher.js';
import type { ApiVersion } from '../common/http/api-version.js';
import type { AppConfig } from '../config/app-config.js';
import type { SqlExecutor } from '../database/sql.js';
import type { RowSource } from './row-sources.js';

/** What a presenter may need besides the rows. */
export interface PresentContext {
  readonly db: SqlExecutor;
  readonly cipher: FieldCipher;
  readonly enterpriseId: string;
  /** The version of a list page being built; undefined for a single record (retrieve, change feed). */
  readonly listVersion?: ApiVersion;
}

/** The words of one operation in the OpenAPI documents. */
export interface OperationText {
  readonly id: string;
  readonly summary: string;
  readonly description: string;
  /** Describes the 200 answer. */
  readonly answer: string;
}

/** A class loaded only when asked for: response schemas and write modules load @nestjs/swagger and @nestjs/core. */
export type LoadClass = () => Promise<abstract new (...args: never[]) => unknown>;

/**
 * One resource of an enterprise, as every layer sees it: the routes and documents derive their
 * paths, tags and operations from it; the reads, the change feed and the ETags their SQL and
 * types; the importer its reference checks; the shared tests their matrix. Adding a resource is
 * writing one of these and adding it to TENANT_RESOURCES (docs/extending.md).
 */
export interface TenantResource<
  Row extends { id: string } = { id: string },
  Rec extends { id: string } = { id: string },
> {
  /** URL segment under /api/v{1,2}; also the table and the import file's section. */
  readonly path: string;
  /** Name in 404 messages and in the id parameter: `No query results for model [Person] ...`. */
  readonly model: string;
  /**
   * The change feed's type name, also the key of the version behind the ETags of its lists and
   * records. A resource with one needs its type in CHANGE_TYPES and its table captured
   * (`addTenantTable(q, table, { capture: { type } })` in its migration, docs/extending.md).
   */
  readonly changeType?: ChangeType;
  /**
   * Why a resource without `changeType` is left out of the feed and answers without ETags; a
   * descriptor has one or the other (test/unit/tenant-resources).
   */
  readonly noChangeType?: string;
  /** OpenAPI tag (also the controller's name: `People` -> `PeopleController`). */
  readonly tag: { readonly name: string; readonly description: string };
  /** The TypeORM entity of its table: the one place its columns are declared (ENTITIES lists it). */
  readonly entity: abstract new () => unknown;
  /**
   * Its response schema class (v1's is derived from it by the casing), loaded by the documents
   * only: `() => import('./note.schema.js').then((m) => m.NoteSchema)`. Schema classes load
   * @nestjs/swagger, half a second of every CLI command's start, and the CLI never documents a route.
   */
  readonly responseSchema: LoadClass;
  readonly list: OperationText;
  readonly retrieve: OperationText & { readonly otherEnterprise?: string };
  /** Where rows come from and how many an enterprise has. */
  readonly rows: RowSource<Row>;
  /** Rows to records, a whole batch at once: a fixed number of queries whatever the batch holds. */
  present(rows: readonly Row[], context: PresentContext): Promise<Rec[]>;
  /**
   * Whether a record outside the header's enterprise is still answered by a retrieve; only v1
   * users with the legacy look-up switched on. Default: never.
   */
  readonly readableOutsideEnterprise?: (version: ApiVersion, config: AppConfig) => boolean;
  /**
   * `'entity'`: the resource's section of the import file is derived from its entity, one field
   * per column (named as the column) validated by the column's type, length and nullability, and
   * written and exported like every section. Absent: the section is hand-written in
   * src/cli/import, for records with nested rows, encrypted or computed fields.
   */
  readonly importSection?: 'entity';
  /**
   * Makes a derived sample record (test fixture, demo data) valid where the entity alone cannot
   * tell how: a CHECK over several columns that is not an order of two (`ends_at > starts_at`
   * the samples satisfy by themselves). Given the n-th derived record, returns it changed.
   */
  readonly validSample?: (record: Readonly<Record<string, unknown>>, n: number) => Record<string, unknown>;
  /**
   * The versions whose writes the resource's own controllers serve (create and update, through
   * src/writes/): no read-only routes are generated for those versions. Absent: read-only in both.
   */
  readonly writable?: Writability;
  /**
   * The Nest module of its write controllers, loaded by the application module only (the CLI
   * never serves a route): `() => import('./notes.module.js').then((m) => m.NotesModule)`.
   * Required with `writable`.
   */
  readonly writeModule?: LoadClass;
}

/** Which versions a resource is written in: `{ v1: false, v2: true }` is read-only in v1. */
export type Writability = Readonly<Record<ApiVersion, boolean>>;

/** Whether the resource takes writes in `version`. */
export function writableIn(resource: TenantResource, version: ApiVersion): boolean {
  return resource.writable?.[version] ?? false;
}

/** What a limited token needs to write the resource's records: `<path>:write` (`leads:write`). */
export function writeAbility(resource: Pick<TenantResource, 'path'>): string {
  return `${resource.path}:write`;
}

/** Whether the resource takes writes in any version (its table changes through the API). */
export function writableAtAll(resource: TenantResource): boolean {
  return writableIn(resource, 'v1') || writableIn(resource, 'v2');
}
