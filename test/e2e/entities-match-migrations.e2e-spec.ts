import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The entities in ENTITIES are the declaration of every column the reads select, so they must
 * describe the migrated schema exactly: TypeORM's schema builder, asked what it would change to
 * make the database match them, must have nothing to do. The migrations stay the only way the
 * schema changes; when this fails, the entity is what is wrong.
 */
describe('entities and migrations agree', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  it('the schema builder finds nothing to change in a freshly migrated database', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    // The generated columns that keep a record's JSON are left out of the entities: TypeORM
    // compares a generated column's expression through rows it keeps by database name, which no
    // copy of a database keeps. test/api/records-written-by-postgres holds what they hold.
    // (Their drops come with a DELETE of the expression TypeORM would have recorded.)
    const storedJson =
      /^ALTER TABLE "(people|phone_numbers|emails|addresses|financials)" DROP COLUMN "record_json(_head|_tail|_version)?"$/;
    const forgetExpression = /^DELETE FROM "typeorm_metadata" WHERE "type" = \$1 AND "name" = \$2 AND/;
    const queries = pending.upQueries.map((q) => q.query);
    expect(queries.filter((query) => !storedJson.test(query) && !forgetExpression.test(query))).toEqual([]);
    expect(queries.filter((query) => storedJson.test(query))).toHaveLength(11);
  });

  it("every CHECK an entity declares allows the values the migration's CHECK of that name allows", async () => {
    // TypeORM compares CHECKs by name only: a status list that differs passes its schema builder.
    const inDatabase = await selectRows<{ table_name: string; name: string; definition: string }>(
      dataSource,
      `SELECT c.conrelid::regclass::text AS table_name, c.conname AS name, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
        WHERE c.contype = 'c' AND n.nspname = 'public'`,
    );
    /** The literals of a CHECK, as a sorted list: quoted strings and numbers, whatever the casts. */
    const literals = (expression: string): string[] =>
      [...expression.matchAll(/'((?:[^']|'')*)'|(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w.])/g)]
        .map((match) => match[1] ?? match[2] ?? '')
        .sort();
    const problems = dataSource.entityMetadatas.flatMap((metadata) =>
      metadata.checks.flatMap((check) => {
        const found = inDatabase.find((c) => c.table_name === metadata.tableName && c.name === check.name);
        if (!found)
          return [`${metadata.tableName}: the entity's CHECK ${check.name ?? '(unnamed)'} is not in the database`];
        const [entity, migration] = [literals(check.expression ?? ''), literals(found.definition)];
        return entity.join('|') === migration.join('|')
          ? []
          : [
              `${metadata.tableName}.${check.name}: the entity allows ${entity.join(', ')}, the migration ${migration.join(', ')}` +
                ` (${found.definition}); make the entity's @Check say what the migration does`,
            ];
      }),
    );
    const declared = new Set(
      dataSource.entityMetadatas.flatMap((metadata) =>
        metadata.checks.map((check) => `${metadata.tableName}.${check.name}`),
      ),
    );
    const described = new Set(dataSource.entityMetadatas.map((metadata) => metadata.tableName));
    const undeclared = inDatabase
      .filter((c) => described.has(c.table_name) && !declared.has(`${c.table_name}.${c.name}`))
      .map(
        (c) => `${c.table_name}.${c.name}: ${c.definition} is not declared by the entity; add @Check('${c.name}', ...)`,
      );
    expect([...problems, ...undeclared]).toEqual([]);
  });

  it('every table of the schema has its entity, but for the two TypeORM cannot describe', async () => {
    const tables = await selectRows<{ table_name: string }>(
      dataSource,
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    const described = new Set(dataSource.entityMetadatas.map((m) => m.tableName));
    const without = tables.map((t) => t.table_name).filter((name) => !described.has(name));
    expect(without).toEqual(
      [
        // TypeORM's own bookkeeping.
        dataSource.options.migrationsTableName,
        'typeorm_metadata',
        // changed_xid is xid8, a type TypeORM 1.x refuses in an entity.
        'change_log',
      ].sort(),
    );
  });
});
