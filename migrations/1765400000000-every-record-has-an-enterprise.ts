import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  anyRow,
  columnNotNull,
  constraintExists,
  constraintValid,
  triggerExists,
} from '../src/database/catalog-checks.js';

/**
 * Every row of a tenant table has an enterprise, and every tenant table's primary key is
 * `(id, enterprise_id)`: the last step before the schema can be distributed by enterprise.
 *
 * People, organisations and leads may belong to no enterprise (the import format allows it; such a
 * record is in no enterprise's lists and answers 403). They are now kept under a reserved
 * enterprise, `00000000-0000-0000-0000-000000000000`, which no user can be a member of, no
 * command or file can name, and whose records show `enterprise_id: null` wherever they are
 * written out (an export). With no NULL left:
 * - `enterprise_id` is NOT NULL on people, organisations, leads and their rows;
 * - their primary keys become `(id, enterprise_id)`, built CONCURRENTLY and swapped in;
 * - the contact rows' and financials' single-column references go: the composite ones
 *   `(enterprise_id, owner_id) -> (enterprise_id, id)` check every row now, and moving an owner
 *   moves its rows by ON UPDATE CASCADE, so the trigger that carried rows into an owner's first
 *   enterprise goes too;
 * - signing documents' unique `(provider, external_id)` takes the enterprise in as well (a unique
 *   key of a distributed table must hold the distribution column); a pair stays unique across
 *   enterprises because the one writer of that table, the importer, refuses a pair another
 *   document has, and imports run one at a time;
 * - memberships refuse the reserved enterprise.
 *
 * Written for a database the service keeps serving, like the two migrations before it: records are
 * moved in batches, each its own short transaction with the change feed's capture off inside it
 * only (the records did not change); NOT NULL comes from a validated CHECK; indexes are built
 * CONCURRENTLY; every step is safe to run again after it gave way to a lock.
 */

const NO_ENTERPRISE = '00000000-0000-0000-0000-000000000000';
const BATCH = 1_000;

interface OwnerTable {
  readonly table: 'people' | 'organisations' | 'leads';
  /** The tables of the rows it owns, which follow it into the reserved enterprise. */
  readonly rows: readonly string[];
}

const OWNERS: readonly OwnerTable[] = [
  { table: 'people', rows: ['phone_numbers', 'emails', 'addresses', 'financials'] },
  { table: 'organisations', rows: ['phone_numbers', 'emails', 'addresses'] },
  { table: 'leads', rows: [] },
];

/** Owned rows and their single-column references, replaced by the composite ones. */
const OWNED: readonly { readonly table: string; readonly owners: readonly string[] }[] = [
  { table: 'phone_numbers', owners: ['person_id', 'organisation_id'] },
  { table: 'emails', owners: ['person_id', 'organisation_id'] },
  { table: 'addresses', owners: ['person_id', 'organisation_id'] },
  { table: 'financials', owners: ['person_id'] },
];

const OWNER_OF: Readonly<Record<string, string>> = { person_id: 'people', organisation_id: 'organisations' };

const KEYED = [...OWNERS.map((owner) => owner.table), ...OWNED.map((owned) => owned.table)];

async function rows<T>(q: QueryRunner, sql: string, parameters: unknown[] = []): Promise<T[]> {
  return (await q.query(sql, parameters)) as T[];
}

async function inTransaction(q: QueryRunner, work: () => Promise<void>): Promise<void> {
  await q.startTransaction();
  try {
    await work();
    await q.commitTransaction();
  } catch (error) {
    await q.rollbackTransaction();
    throw error;
  }
}

/** The primary key's columns, in key order. */
async function primaryKeyColumns(q: QueryRunner, table: string): Promise<string> {
  const found = await rows<{ name: string }>(
    q,
    `SELECT a.attname AS name
       FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY k.ord`,
    [table],
  );
  return found.map((row) => row.name).join(', ');
}

/** A unique index built without blocking writes; an invalid leftover of a failed try is rebuilt. */
async function uniqueIndexConcurrently(q: QueryRunner, name: string, table: string, columns: string): Promise<void> {
  const valid = await rows<{ valid: boolean }>(
    q,
    `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1`,
    [name],
  );
  if (valid[0]?.valid === true) return;
  if (valid[0]?.valid === false) await q.query(`DROP INDEX CONCURRENTLY ${name}`);
  await q.query(`CREATE UNIQUE INDEX CONCURRENTLY ${name} ON ${table} (${columns})`);
}

/**
 * The owner's records of no enterprise move to the reserved one, a batch at a time; its rows follow
 * (the trigger that carries rows into an owner's first enterprise, dropped afterwards). The feed's
 * capture is off for the batch inside its transaction only.
 */
async function moveToReservedEnterprise(q: QueryRunner, owner: OwnerTable): Promise<void> {
  const captured = [owner.table, ...owner.rows];
  while (await anyRow(q, `SELECT 1 FROM ${owner.table} WHERE enterprise_id IS NULL`)) {
    await inTransaction(q, async () => {
      for (const table of captured) await q.query(`ALTER TABLE ${table} DISABLE TRIGGER ${table}_changes_update`);
      await q.query(
        `UPDATE ${owner.table} SET enterprise_id = $1
          WHERE id IN (SELECT id FROM ${owner.table} WHERE enterprise_id IS NULL LIMIT ${BATCH} FOR UPDATE)`,
        [NO_ENTERPRISE],
      );
      for (const table of captured) await q.query(`ALTER TABLE ${table} ENABLE TRIGGER ${table}_changes_update`);
    });
  }
}

/** Rows left without an enterprise (none, unless written by hand) take their owner's. */
async function rowsTakeOwnersEnterprise(q: QueryRunner, owned: (typeof OWNED)[number]): Promise<void> {
  const owners = owned.owners.map(
    (column) => `(SELECT o.enterprise_id FROM ${OWNER_OF[column]} o WHERE o.id = x.${column})`,
  );
  while (await anyRow(q, `SELECT 1 FROM ${owned.table} WHERE enterprise_id IS NULL`)) {
    await inTransaction(q, async () => {
      await q.query(`ALTER TABLE ${owned.table} DISABLE TRIGGER ${owned.table}_changes_update`);
      await q.query(
        `UPDATE ${owned.table} x SET enterprise_id = COALESCE(${owners.join(', ')})
          WHERE x.id IN (SELECT id FROM ${owned.table} WHERE enterprise_id IS NULL LIMIT ${BATCH} FOR UPDATE)`,
      );
      await q.query(`ALTER TABLE ${owned.table} ENABLE TRIGGER ${owned.table}_changes_update`);
    });
  }
}

async function notNull(q: QueryRunner, table: string): Promise<void> {
  const check = `${table}_enterprise_id_not_null`;
  if (await columnNotNull(q, table, 'enterprise_id')) {
    // Gave way between SET NOT NULL and dropping the check that let it skip its scan.
    if (await constraintExists(q, table, check)) await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${check}`);
    return;
  }
  if (!(await constraintExists(q, table, check))) {
    await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${check} CHECK (enterprise_id IS NOT NULL) NOT VALID`);
  }
  await q.query(`ALTER TABLE ${table} VALIDATE CONSTRAINT ${check}`);
  await q.query(`ALTER TABLE ${table} ALTER COLUMN enterprise_id SET NOT NULL`);
  await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${check}`);
}

/** The primary key becomes `(id, enterprise_id)`: its index built CONCURRENTLY, then one brief ALTER. */
async function keyWithEnterprise(q: QueryRunner, table: string): Promise<void> {
  if ((await primaryKeyColumns(q, table)) === 'id, enterprise_id') return;
  const next = `${table}_pkey_next`;
  await uniqueIndexConcurrently(q, next, table, 'id, enterprise_id');
  await q.query(
    `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${next}`,
  );
}

/** Signing documents' pair is unique within an enterprise (across them, by the importer's check). */
async function externalKeyWithEnterprise(q: QueryRunner): Promise<void> {
  const next = 'signing_documents_external_key_next';
  const columns = await rows<{ columns: number }>(
    q,
    `SELECT array_length(conkey, 1) AS columns FROM pg_constraint
      WHERE conrelid = 'signing_documents'::regclass AND conname = 'signing_documents_external_key'`,
  );
  if (columns[0]?.columns === 3) return;
  await uniqueIndexConcurrently(q, next, 'signing_documents', 'provider, external_id, enterprise_id');
  await q.query(
    `ALTER TABLE signing_documents DROP CONSTRAINT signing_documents_external_key,
       ADD CONSTRAINT signing_documents_external_key UNIQUE USING INDEX ${next}`,
  );
}

async function membershipsRefuseReservedEnterprise(q: QueryRunner): Promise<void> {
  const name = 'memberships_not_the_reserved_enterprise';
  if (await constraintValid(q, 'memberships', name)) return;
  if (!(await constraintExists(q, 'memberships', name))) {
    await q.query(
      `ALTER TABLE memberships ADD CONSTRAINT ${name} CHECK (enterprise_id <> '${NO_ENTERPRISE}'::uuid) NOT VALID`,
    );
  }
  await q.query(`ALTER TABLE memberships VALIDATE CONSTRAINT ${name}`);
}

export class EveryRecordHasAnEnterprise1765400000000 implements MigrationInterface {
  name = 'EveryRecordHasAnEnterprise1765400000000';
  /** CREATE INDEX CONCURRENTLY cannot run in a transaction; each step below is short on its own. */
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `INSERT INTO enterprises (id, name, is_active) VALUES ($1, 'Records of no enterprise', 0) ON CONFLICT (id) DO NOTHING`,
      [NO_ENTERPRISE],
    );
    await membershipsRefuseReservedEnterprise(q);
    for (const owner of OWNERS) await moveToReservedEnterprise(q, owner);
    for (const owned of OWNED) await rowsTakeOwnersEnterprise(q, owned);
    for (const owner of ['people', 'organisations']) {
      if (await triggerExists(q, owner, `${owner}_rows_follow_enterprise`)) {
        await q.query(`DROP TRIGGER ${owner}_rows_follow_enterprise ON ${owner}`);
      }
      await q.query(`DROP FUNCTION IF EXISTS ${owner}_rows_follow_enterprise()`);
    }
    for (const table of KEYED) await notNull(q, table);
    for (const owned of OWNED) {
      for (const column of owned.owners) {
        const single = `${owned.table}_${column}_fkey`;
        if (await constraintExists(q, owned.table, single)) {
          await q.query(`ALTER TABLE ${owned.table} DROP CONSTRAINT ${single}`);
        }
      }
    }
    for (const table of KEYED) await keyWithEnterprise(q, table);
    await externalKeyWithEnterprise(q);
  }

  /**
   * Back, in one transaction (all or nothing, run again after a failure): records of the reserved
   * enterprise belong to none again, and it is removed.
   */
  public async down(q: QueryRunner): Promise<void> {
    await inTransaction(q, async () => {
      await q.query(
        `ALTER TABLE signing_documents DROP CONSTRAINT signing_documents_external_key,
           ADD CONSTRAINT signing_documents_external_key UNIQUE (provider, external_id)`,
      );
      for (const table of KEYED) {
        await q.query(`CREATE UNIQUE INDEX ${table}_pkey_next ON ${table} (id)`);
        await q.query(
          `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${table}_pkey_next`,
        );
      }
      for (const owned of OWNED) {
        for (const column of owned.owners) {
          await q.query(
            `ALTER TABLE ${owned.table} ADD CONSTRAINT ${owned.table}_${column}_fkey FOREIGN KEY (${column})
               REFERENCES ${OWNER_OF[column]} (id) ON DELETE CASCADE`,
          );
        }
      }
      for (const table of KEYED) await q.query(`ALTER TABLE ${table} ALTER COLUMN enterprise_id DROP NOT NULL`);
      for (const owner of ['people', 'organisations'] as const) {
        const column = owner === 'people' ? 'person_id' : 'organisation_id';
        const tables = OWNED.filter((owned) => owned.owners.includes(column)).map((owned) => owned.table);
        await q.query(`CREATE OR REPLACE FUNCTION ${owner}_rows_follow_enterprise() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            ${tables.map((t) => `UPDATE ${t} SET enterprise_id = NEW.enterprise_id WHERE ${column} = NEW.id AND enterprise_id IS NULL;`).join('\n            ')}
            RETURN NULL;
          END $$`);
        await q.query(`CREATE TRIGGER ${owner}_rows_follow_enterprise AFTER UPDATE OF enterprise_id ON ${owner}
          FOR EACH ROW WHEN (OLD.enterprise_id IS NULL AND NEW.enterprise_id IS NOT NULL)
          EXECUTE FUNCTION ${owner}_rows_follow_enterprise()`);
      }
      const captured = ['people', 'organisations', 'leads', ...OWNED.map((owned) => owned.table)];
      for (const table of captured) await q.query(`ALTER TABLE ${table} DISABLE TRIGGER ${table}_changes_update`);
      // The composite references cascade the NULL to the owners' rows.
      for (const owner of OWNERS) {
        await q.query(`UPDATE ${owner.table} SET enterprise_id = NULL WHERE enterprise_id = $1`, [NO_ENTERPRISE]);
      }
      for (const table of captured) await q.query(`ALTER TABLE ${table} ENABLE TRIGGER ${table}_changes_update`);
      await q.query(`ALTER TABLE memberships DROP CONSTRAINT memberships_not_the_reserved_enterprise`);
      await q.query(`DELETE FROM enterprises WHERE id = $1`, [NO_ENTERPRISE]);
    });
  }
}
