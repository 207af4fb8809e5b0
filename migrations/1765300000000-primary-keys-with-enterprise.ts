import type { MigrationInterface, QueryRunner } from 'typeorm';
import { constraintExists, constraintValid } from '../src/database/catalog-checks.js';

/**
 * The primary key of every tenant table whose rows all have an enterprise becomes
 * `(id, enterprise_id)`: a distributed PostgreSQL (Citus) accepts a primary or unique key on a
 * table distributed by `enterprise_id` only when the key includes it. `id` stays first, so a
 * look-up by id alone (an import's upsert, the delivery worker's lease, a provider's webhook)
 * still reads the key's index. People, organisations, leads and their rows keep `id` alone: the
 * API lets such a record belong to no enterprise, and a primary key cannot hold a NULL.
 *
 * Applications and webhook endpoints had a unique key over the same two columns for the
 * references to them (quotes, deliveries); those references move to the primary key and the
 * duplicate index goes.
 *
 * Written for a database the service keeps serving (run without a transaction of its own, each
 * step short and safe to run again after it gave way to a lock): the new key's index is built
 * CONCURRENTLY, then swapped in by one ALTER (a brief exclusive lock, no scan: the columns are
 * NOT NULL already); a moved reference is dropped and added NOT VALID in one short transaction,
 * then validated without blocking writes.
 */

interface KeyedTable {
  readonly table: string;
  /** A unique key over the same columns, made redundant by the new primary key. */
  readonly duplicateUnique?: string;
  /** References to the table, moved from that unique key to the primary key. */
  readonly references?: readonly { readonly table: string; readonly name: string; readonly definition: string }[];
}

const TABLES: readonly KeyedTable[] = [
  {
    table: 'applications',
    duplicateUnique: 'applications_id_enterprise_id_key',
    references: [
      {
        table: 'quotes',
        name: 'quotes_application_id_enterprise_id_fkey',
        definition:
          'FOREIGN KEY (application_id, enterprise_id) REFERENCES applications (id, enterprise_id) ON DELETE CASCADE',
      },
    ],
  },
  { table: 'quotes' },
  { table: 'signing_documents' },
  { table: 'audit_events' },
  { table: 'tenant_count_deltas' },
  {
    table: 'webhook_endpoints',
    duplicateUnique: 'webhook_endpoints_enterprise_id_id_key',
    references: [
      {
        table: 'webhook_deliveries',
        name: 'webhook_deliveries_enterprise_id_endpoint_id_fkey',
        definition:
          'FOREIGN KEY (enterprise_id, endpoint_id) REFERENCES webhook_endpoints (enterprise_id, id) ON DELETE CASCADE ON UPDATE CASCADE',
      },
    ],
  },
  { table: 'webhook_deliveries' },
];

async function rows<T>(q: QueryRunner, sql: string, parameters: unknown[]): Promise<T[]> {
  return (await q.query(sql, parameters)) as T[];
}

/** The primary key's columns, in key order. */
async function primaryKeyColumns(q: QueryRunner, table: string): Promise<string[]> {
  const found = await rows<{ name: string }>(
    q,
    `SELECT a.attname AS name
       FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
      WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY k.ord`,
    [table],
  );
  return found.map((row) => row.name);
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

/** Swaps the table's primary key for `columns`, moving the references a duplicate unique key served. */
async function swapPrimaryKey(q: QueryRunner, keyed: KeyedTable, columns: string): Promise<void> {
  const { table } = keyed;
  const next = `${table}_pkey_next`;
  if ((await primaryKeyColumns(q, table)).join(', ') !== columns) {
    await uniqueIndexConcurrently(q, next, table, columns);
    await q.query(
      `ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${next}`,
    );
  }
  if (keyed.duplicateUnique && (await constraintExists(q, table, keyed.duplicateUnique))) {
    const duplicate = keyed.duplicateUnique;
    await inTransaction(q, async () => {
      // The referenced table first, as the service's reads take them: no lock order to deadlock on.
      const tables = [table, ...(keyed.references ?? []).map((reference) => reference.table)];
      await q.query(`LOCK TABLE ${tables.join(', ')} IN ACCESS EXCLUSIVE MODE`);
      for (const reference of keyed.references ?? [])
        await q.query(`ALTER TABLE ${reference.table} DROP CONSTRAINT IF EXISTS ${reference.name}`);
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${duplicate}`);
      for (const reference of keyed.references ?? [])
        await q.query(
          `ALTER TABLE ${reference.table} ADD CONSTRAINT ${reference.name} ${reference.definition} NOT VALID`,
        );
    });
  }
  // Skipped once done: a run after the migration gave way takes no lock it does not need.
  for (const reference of keyed.references ?? [])
    if (!(await constraintValid(q, reference.table, reference.name)))
      await q.query(`ALTER TABLE ${reference.table} VALIDATE CONSTRAINT ${reference.name}`);
}

export class PrimaryKeysWithEnterprise1765300000000 implements MigrationInterface {
  name = 'PrimaryKeysWithEnterprise1765300000000';
  /** CREATE INDEX CONCURRENTLY cannot run in a transaction; each step below is short on its own. */
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const keyed of TABLES) await swapPrimaryKey(q, keyed, 'id, enterprise_id');
  }

  /**
   * Back to keys of `id` alone, in one transaction (all or nothing, run again after a failure);
   * it fails, and changes nothing, if an id has meanwhile been used in two enterprises.
   */
  public async down(q: QueryRunner): Promise<void> {
    await inTransaction(q, () => this.keysOfIdAlone(q));
  }

  private async keysOfIdAlone(q: QueryRunner): Promise<void> {
    for (const keyed of TABLES) {
      if (keyed.duplicateUnique) {
        const columns = keyed.table === 'applications' ? 'id, enterprise_id' : 'enterprise_id, id';
        await q.query(`ALTER TABLE ${keyed.table} ADD CONSTRAINT ${keyed.duplicateUnique} UNIQUE (${columns})`);
      }
      const next = `${keyed.table}_pkey_next`;
      await q.query(`CREATE UNIQUE INDEX ${next} ON ${keyed.table} (id)`);
      // A reference served by the primary key moves back to the unique key first.
      for (const reference of keyed.references ?? []) {
        await q.query(`ALTER TABLE ${reference.table} DROP CONSTRAINT ${reference.name}`);
      }
      await q.query(
        `ALTER TABLE ${keyed.table} DROP CONSTRAINT ${keyed.table}_pkey, ADD CONSTRAINT ${keyed.table}_pkey PRIMARY KEY USING INDEX ${next}`,
      );
      for (const reference of keyed.references ?? []) {
        await q.query(`ALTER TABLE ${reference.table} ADD CONSTRAINT ${reference.name} ${reference.definition}`);
      }
    }
  }
}
