import { getMetadataArgsStorage } from 'typeorm';
import type { ColumnMetadataArgs } from 'typeorm/metadata-args/ColumnMetadataArgs.js';
import { z } from 'zod';
import { crossColumnChecks, keepsOrder, orderRanks } from '../../database/column-order-checks.js';
import { flagTransformer } from '../../database/columns.js';
import { SnakeNamingStrategy } from '../../database/snake-naming.strategy.js';
import type { TenantResource } from '../../resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../resources/tenant-resources.js';
import { chars, flag, id, money, text, timestamp } from './import-fields.js';
import { importReferencesOf } from './import-references.js';
import type { Column, ColumnType, TargetTable } from './import-tables.js';

/**
 * Import sections derived from an entity, for resources whose record is one row of one table
 * (`importSection: 'entity'` on the descriptor): each column is a field of the same name,
 * validated by the column's type, length and nullability; `id`, `created_at` and `updated_at`
 * are handled as in every section. The writes, checks and export then treat the section like the
 * hand-written ones.
 */
export interface EntitySection {
  /** The section's name in the file, which is also its table. */
  readonly name: string;
  /** One record of the section. */
  readonly record: z.ZodType<Record<string, unknown>>;
  /** The table and the columns an import writes besides id and timestamps. */
  readonly target: TargetTable;
  /** The SELECT list that reads a row back as the file's record (export). */
  readonly exportColumns: string;
  /**
   * The n-th sample record of the section (without id and timestamps), every column a value its
   * field accepts: the demo data and the test fixture of a resource that gives none by hand.
   */
  sample(n: number, values: SampleValues): Record<string, unknown>;
  /** Each field besides id and the timestamps, as the documents describe it. */
  readonly fields: readonly SectionField[];
}

/** One field of a derived section, for the documents. */
export interface SectionField {
  readonly name: string;
  /** `id`, `text(255)`, `text`, `date`, `date-time`, `money`, `integer`, `flag`, `boolean`. */
  readonly type: string;
  readonly required: boolean;
  /** What it takes when left out, when that is not null. */
  readonly default?: string;
  /** The only values it takes. */
  readonly values?: readonly string[];
  /** The section of the record it names (of the same enterprise). */
  readonly reference?: string;
  /** The fields it must come after (its entity's CHECKs), `>=` ones marked "or equal". */
  readonly after: readonly string[];
}

/** What sample records say where the entity alone cannot tell. */
export interface SampleValues {
  readonly enterpriseId: string;
  /** A record of `section` in the same enterprise, for a reference column; undefined leaves it null. */
  readonly recordOf: (section: string) => string | undefined;
  /** The text of the n-th record's column (cut to the column's length). */
  readonly text: (column: string, n: number) => string;
}

/** A sample column's value in the n-th record. */
type Sampler = (n: number, values: SampleValues) => unknown;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SAMPLE_START = Date.UTC(2025, 2, 1, 9);

/**
 * A value of the stored type for the n-th sample record: dates a day apart, numbers one apart;
 * a column an order CHECK puts after others (`rank`) an hour, a day or one later than them.
 */
function sampler(column: string, stored: ColumnType, length: number | undefined, rank: number): Sampler {
  switch (stored) {
    case 'smallint':
    case 'boolean':
      return (n) => n % 2 === 0;
    case 'integer':
      return (n) => n + rank;
    case 'numeric(14,2)':
      return (n) => `${1000 + n + rank}.00`;
    case 'date':
      return (n) => new Date(SAMPLE_START + (n + rank) * DAY).toISOString().slice(0, 10);
    case 'timestamptz(3)':
      return (n) => new Date(SAMPLE_START + n * DAY + rank * HOUR).toISOString();
    case 'text':
      return (n, values) => values.text(column, n).slice(0, length);
    case 'uuid':
    case 'jsonb':
      // A uuid that is no reference, or a document: nothing to invent, left null.
      return () => null;
  }
}

const naming = new SnakeNamingStrategy();
const RECORD_COLUMNS = new Set(['id', 'created_at', 'updated_at']);

interface EntityColumn {
  readonly name: string;
  readonly args: ColumnMetadataArgs;
}

/** `column IN ('a', 'b')`: a CHECK that fixes a text column's values (a status list). */
const FIXED_VALUES = /^\s*"?(\w+)"?\s+IN\s*\(((?:\s*'[^']*'\s*,?)+)\)\s*$/i;

/**
 * The fixed values of each column of the entity that has them, read from its `@Check`s: the entity
 * is the one place they are written (the migration's CHECK is held to it by entities-match-migrations).
 */
function fixedValues(resource: TenantResource): Map<string, [string, ...string[]]> {
  const out = new Map<string, [string, ...string[]]>();
  for (const check of getMetadataArgsStorage().checks) {
    if (check.target !== resource.entity) continue;
    const match = FIXED_VALUES.exec(check.expression);
    if (!match?.[1] || !match[2]) continue;
    const values = [...match[2].matchAll(/'([^']*)'/g)].map((value) => value[1] ?? '');
    if (values.length > 0) out.set(match[1], values as [string, ...string[]]);
  }
  return out;
}

function entityColumns(resource: TenantResource): EntityColumn[] {
  return getMetadataArgsStorage()
    .columns.filter((column) => column.target === resource.entity)
    .map((args) => ({ name: naming.columnName(args.propertyName, args.options.name, []), args }));
}

function unsupported(resource: TenantResource, column: EntityColumn): Error {
  return new Error(
    `${resource.path}.${column.name}: a ${String(column.args.options.type)} column cannot be derived into an ` +
      `import section; write the section by hand in src/cli/import (docs/extending.md)`,
  );
}

/** The column's value in the file, before nullability. */
function fieldOf(resource: TenantResource, column: EntityColumn): { field: z.ZodType; stored: ColumnType } {
  const { type, length, transformer } = column.args.options;
  if (transformer === flagTransformer) return { field: flag, stored: 'smallint' };
  const kind: string = typeof type === 'string' ? type : String(type);
  switch (kind) {
    case 'uuid':
      return { field: id, stored: 'uuid' };
    case 'varchar':
      return { field: chars(Number(length ?? 255), { required: !column.args.options.nullable }), stored: 'text' };
    case 'text':
      return { field: text, stored: 'text' };
    case 'date':
      return { field: z.iso.date(), stored: 'date' };
    case 'integer':
      return { field: z.int(), stored: 'integer' };
    case 'boolean':
      return { field: z.boolean(), stored: 'boolean' };
    case 'numeric':
      if (column.args.options.precision === 14 && column.args.options.scale === 2) {
        return { field: money, stored: 'numeric(14,2)' };
      }
      throw unsupported(resource, column);
    case 'timestamptz':
      return { field: z.iso.datetime({ offset: true }), stored: 'timestamptz(3)' };
    default:
      throw unsupported(resource, column);
  }
}

/** The type of a stored column in the words of the import format. */
function documentedType(stored: ColumnType, length: number | undefined): string {
  const words: Record<ColumnType, string> = {
    uuid: 'id',
    text: length === undefined ? 'text' : `text(${length})`,
    date: 'date',
    'timestamptz(3)': 'date-time',
    'numeric(14,2)': 'money',
    integer: 'integer',
    smallint: 'flag',
    boolean: 'boolean',
    jsonb: 'JSON',
  };
  return words[stored];
}

/** How a column is read back into the file: dates and amounts as text, flags as booleans. */
function exported(column: string, stored: ColumnType): string {
  if (stored === 'smallint') return `(${column} = 1) AS ${column}`;
  if (stored === 'date' || stored === 'numeric(14,2)') return `${column}::text AS ${column}`;
  if (stored === 'timestamptz(3)') {
    return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${column}`;
  }
  return column;
}

export function entitySection(resource: TenantResource): EntitySection {
  const table = resource.rows.table;
  if (table === undefined)
    throw new Error(`${resource.path}: only a tenant table's section can be derived from its entity`);
  const shape: Record<string, z.ZodType> = { id };
  const columns: Column[] = [];
  const selects = ['id'];
  const fixed = fixedValues(resource);
  const ranks = orderRanks(resource.entity);
  const { orders, others } = crossColumnChecks(resource.entity);
  const references = importReferencesOf(resource);
  const samplers: [string, Sampler][] = [];
  const fields: SectionField[] = [];
  for (const column of entityColumns(resource)) {
    if (RECORD_COLUMNS.has(column.name)) continue;
    const values = fixed.get(column.name);
    const derived = fieldOf(resource, column);
    const { stored } = derived;
    const reference = references.find((r) => r.column === column.name);
    const length = column.args.options.length === undefined ? undefined : Number(column.args.options.length);
    samplers.push([
      column.name,
      column.name === 'enterprise_id'
        ? (_n, sample) => sample.enterpriseId
        : reference
          ? referenceSampler(resource, column, reference.section)
          : values
            ? (n) => values[n % values.length]
            : sampler(column.name, stored, length, ranks.get(column.name) ?? 0),
    ]);
    const field = values ? z.enum(values) : derived.field;
    const { nullable } = column.args.options;
    const defaultValue: unknown = column.args.options.default;
    if (stored === 'smallint' && typeof defaultValue === 'number') {
      shape[column.name] = flag.default(defaultValue === 1);
    } else if (nullable) {
      shape[column.name] = field.nullable().default(null);
    } else if (typeof defaultValue === 'string' || typeof defaultValue === 'number') {
      // Left out, the column takes its default, as the table would give it.
      shape[column.name] = field.default(defaultValue as never);
    } else {
      shape[column.name] = field;
    }
    columns.push({ name: column.name, type: stored });
    selects.push(exported(column.name, stored));
    fields.push({
      name: column.name,
      type: documentedType(stored, length),
      required: !nullable && defaultValue === undefined,
      ...(typeof defaultValue === 'string' || typeof defaultValue === 'number'
        ? { default: stored === 'smallint' ? String(defaultValue === 1) : String(defaultValue) }
        : {}),
      ...(values ? { values } : {}),
      ...(column.name === 'enterprise_id'
        ? { reference: 'enterprises' }
        : reference
          ? { reference: reference.section }
          : {}),
      after: orders
        .filter((order) => order.later === column.name)
        .map((order) => (order.orEqual ? `${order.earlier} (or equal)` : order.earlier)),
    });
  }
  shape.created_at = timestamp;
  shape.updated_at = timestamp;
  selects.push(exported('created_at', 'timestamptz(3)'), exported('updated_at', 'timestamptz(3)'));
  const unreadable = resource.validSample ? undefined : others[0];
  return {
    name: resource.path,
    record: z.strictObject(shape).superRefine((record, context) => {
      for (const order of orders) {
        if (keepsOrder(record[order.later], record[order.earlier], order.orEqual)) continue;
        context.addIssue({
          code: 'custom',
          path: [order.later],
          message: `must be ${order.orEqual ? 'on or after' : 'after'} ${order.earlier} (${order.check})`,
        });
      }
    }),
    target: { table, columns },
    exportColumns: selects.join(', '),
    fields,
    sample: (n, values) => {
      if (unreadable) {
        throw new Error(
          `${resource.path}: sample records cannot satisfy the CHECK ${unreadable.check} (${unreadable.expression}) ` +
            'by themselves; give the descriptor validSample(record, n), which returns the derived record made valid',
        );
      }
      const record = Object.fromEntries(samplers.map(([name, value]) => [name, value(n, values)]));
      return resource.validSample ? resource.validSample(record, n) : record;
    },
  };
}

/** A reference's sample value: the enterprise's record of that section; a required one must have it. */
function referenceSampler(resource: TenantResource, column: EntityColumn, section: string): Sampler {
  const required = column.args.options.nullable !== true;
  return (_n, sample) => {
    const found = sample.recordOf(section);
    if (found === undefined && required) {
      throw new Error(
        `${resource.path}.${column.name} is a required reference to ${section}: the sample records need a ` +
          `record of ${section} in the same enterprise (give that section records before this one)`,
      );
    }
    return found ?? null;
  };
}

/** Every entity-derived section, in the order of the resources. */
export const ENTITY_SECTIONS: readonly EntitySection[] = TENANT_RESOURCES.filter(
  (resource) => resource.importSection === 'entity',
).map(entitySection);
