import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { importDocument } from '../../src/cli/import/importer.js';
import { IMPORT_SECTIONS, SECTION_RECORDS } from '../../src/cli/import/import-schema.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import type { ImportDocument } from '../helpers/fixtures.js';
import { foreignKeys, primaryKey, tableColumns, type ForeignKeyFact } from '../helpers/schema-facts.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { twoTenants } from '../helpers/two-tenants.js';

/**
 * Every reference the import format lets a file give is checked by the importer, so a bad one
 * is reported at its path (`quotes[0].application_id: ...`) with nothing written, never as the
 * database's own foreign-key error. The references come from the schema's foreign keys
 * (information_schema), matched to the fields of the import sections: a new foreign key on an
 * imported table, without its check in the importer, fails here.
 */

type Row = Record<string, unknown>;

interface ReferenceCase {
  /** Where the problem must be reported: a composite key's may be at any of its columns. */
  readonly paths: readonly string[];
  readonly why: string;
  /** The section's first record of the fixture, with the reference broken. */
  readonly section: string;
  readonly record: Row;
}

type Shape = Record<string, z.ZodType>;

/** The object inside optional, nullable and default wrappers, or undefined. */
function shapeOf(schema: z.ZodType): Shape | undefined {
  const inner = unwrapped(schema);
  return inner instanceof z.ZodObject ? inner.shape : undefined;
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable || inner instanceof z.ZodDefault) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner;
}

/** Nested collections of a record (`people[].phone_numbers`): field name, element shape. */
function nestedCollections(shape: Shape): [string, Shape][] {
  return Object.entries(shape).flatMap(([field, schema]) => {
    const inner = unwrapped(schema);
    const element = inner instanceof z.ZodArray ? shapeOf(inner.element as z.ZodType) : undefined;
    return element ? [[field, element] as [string, Shape]] : [];
  });
}

const { doc } = twoTenants();
const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
let database: TestDatabase;
let dataSource: DataSource;
let keys: ForeignKeyFact[];

/** The fixture's first record of a section (the own tenant's): re-importing it is an update. */
function firstRecord(section: string): Row {
  const [record] = doc[section] ?? [];
  if (!record) throw new Error(`test/helpers/two-tenants.ts has no "${section}" record: give it one`);
  return structuredClone(record);
}

/**
 * A row of the referenced table that exists but does not match the record on the key's other
 * columns: for (application_id, enterprise_id), an application of another enterprise.
 */
async function mismatchedReference(key: ForeignKeyFact, column: string, record: Row): Promise<unknown> {
  const others = key.columns.map((c, i) => [c, key.referencedColumns[i] ?? ''] as const).filter(([c]) => c !== column);
  const referenced = key.referencedColumns[key.columns.indexOf(column)] ?? '';
  const rows = await selectRows<{ value: unknown }>(
    dataSource,
    `SELECT ${referenced} AS value FROM ${key.referencedTable}
      WHERE ${others.map(([, ref], i) => `${ref} IS DISTINCT FROM $${i + 1}`).join(' OR ')} LIMIT 1`,
    others.map(([c]) => record[c]),
  );
  if (!rows[0]) throw new Error(`the fixture has no ${key.referencedTable} row to break ${key.name} with`);
  return rows[0].value;
}

/** The references a file can give, each broken once. */
async function referenceCases(): Promise<ReferenceCase[]> {
  const cases: ReferenceCase[] = [];
  for (const section of IMPORT_SECTIONS) {
    if ((await tableColumns(dataSource, section)).length === 0) {
      throw new Error(`import section "${section}" has no table of that name`);
    }
    const record = SECTION_RECORDS[section];
    const shape = record && shapeOf(record);
    if (!shape) throw new Error(`import section "${section}" is not an object schema`);
    const at = `${section}[0]`;

    // The section's own columns that are foreign keys.
    for (const key of keys.filter((k) => k.table === section)) {
      const exposed = key.columns.filter((c) => c in shape);
      const paths = exposed.map((c) => `${at}.${c}`);
      for (const column of exposed) {
        const unknown = { ...firstRecord(section), [column]: randomUUID() };
        cases.push({ paths, why: `${column} unknown (${key.name})`, section, record: unknown });
        if (key.columns.length > 1) {
          const record = firstRecord(section);
          record[column] = await mismatchedReference(key, column, record);
          cases.push({ paths, why: `${column} mismatched (${key.name})`, section, record });
        }
      }
    }

    // Link tables (memberships): a list of ids on the record, `enterprise_ids` for enterprise_id.
    for (const link of keys.filter((k) => k.referencedTable === section && k.columns.length === 1)) {
      const pk = await primaryKey(dataSource, link.table);
      const other = keys.find(
        (k) => k.table === link.table && k !== link && k.columns.length === 1 && pk.includes(k.columns[0] ?? ''),
      );
      const field = `${other?.columns[0] ?? ''}s`;
      if (!other || pk.length !== 2 || !pk.includes(link.columns[0] ?? '') || !(field in shape)) continue;
      const record = { ...firstRecord(section), [field]: [randomUUID()] };
      cases.push({ paths: [`${at}.${field}[0]`], why: `unknown (${other.name})`, section, record });
    }

    // Nested rows: their owner is the record they sit in; any other reference they carry.
    for (const [field, element] of nestedCollections(shape)) {
      for (const key of keys.filter((k) => k.table === field)) {
        for (const column of key.columns.filter((c) => c in element)) {
          const record = firstRecord(section);
          const [row] = (record[field] as Row[] | undefined) ?? [];
          if (!row) throw new Error(`the fixture's first "${section}" record has no ${field}: give it one`);
          record[field] = [{ ...row, [column]: randomUUID() }];
          cases.push({ paths: [`${at}.${field}[0].${column}`], why: `unknown (${key.name})`, section, record });
        }
      }
    }
  }
  return cases;
}

/** Everything in the tables an import writes, to prove a refused file wrote nothing. */
async function snapshot(): Promise<string> {
  const parts: string[] = [];
  for (const table of [...new Set([...IMPORT_SECTIONS, ...keys.map((k) => k.table)])].sort()) {
    const [row] = await selectRows<{ digest: string | null }>(
      dataSource,
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t`,
    );
    parts.push(`${table}:${row?.digest ?? ''}`);
  }
  return parts.join(' ');
}

describe('import reference checks, from the schema’s foreign keys', () => {
  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
    const outcome = await importDocument(dataSource, cipher, doc);
    if (!outcome.ok) throw new Error(`fixture rejected:\n${outcome.problems.join('\n')}`);
    keys = await foreignKeys(dataSource);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  it('every reference a file can give is reported at its path, and nothing is written', async () => {
    const cases = await referenceCases();
    // The derivation must find the references the format is known to have, so it cannot find none.
    expect(cases.flatMap((c) => c.paths)).toEqual(
      expect.arrayContaining(['people[0].enterprise_id', 'quotes[0].application_id', 'users[0].enterprise_ids[0]']),
    );
    const before = await snapshot();
    const failures: string[] = [];
    for (const reference of cases) {
      // A new enterprise in the same file, which must not be written either.
      const witness = randomUUID();
      const file: ImportDocument = {
        enterprises: [{ id: witness, name: 'Witness' }],
        [reference.section]: [reference.record],
      };
      if (reference.section === 'enterprises') file.enterprises = [reference.record, { id: witness, name: 'Witness' }];
      const outcome = await importDocument(dataSource, cipher, file);
      const problems = outcome.ok ? [] : outcome.problems;
      const where = `${reference.section}[0]: ${reference.why}`;
      if (outcome.ok) failures.push(`${where}: the file was accepted`);
      else if (!problems.some((p) => reference.paths.some((path) => p.startsWith(`${path}: `)))) {
        failures.push(`${where}: no problem at ${reference.paths.join(' or ')}, got ${JSON.stringify(problems)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot()).toBe(before);
  });
});
