import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  anyRow,
  columnExists,
  columnNotNull,
  constraintExists,
  constraintValid,
  triggerExists,
} from '../src/database/catalog-checks.js';

/**
 * Tenancy in the keys: every row of a tenant table names its enterprise, and every reference
 * between tenant tables is a composite foreign key `(enterprise_id, x_id) -> (enterprise_id, id)`,
 * so PostgreSQL itself refuses a row tied to another enterprise's record, whoever writes it.
 *
 * The rows that reached their enterprise only through their owner get the column: phone numbers,
 * emails and addresses (of a person or an organisation), financials (of a person), and webhook
 * deliveries (of an endpoint). Their owners get a unique `(enterprise_id, id)` for the references
 * to point at. Moving an owner to another enterprise moves its rows with it (ON UPDATE CASCADE).
 *
 * People and organisations may belong to no enterprise (the import format allows it; such a record
 * is in no list). Their rows carry no enterprise either, so the column stays nullable on the
 * contact tables, and the single-column references stay beside the composite ones: they still
 * check that a row's owner exists when neither has an enterprise. Two triggers keep a NULL from
 * hiding a row from the composite check: a row written without its enterprise gets its owner's
 * (so a writer that does not know the column yet still writes it right), and an owner given an
 * enterprise for the first time takes its rows along (a reference with a NULL matches nothing, so
 * ON UPDATE CASCADE cannot). Webhook deliveries always have one: NOT NULL, composite only.
 *
 * Written for a large database the service keeps serving (run without a transaction of its own,
 * each step short and safe to run again after it gave way to a lock):
 * - the unique indexes are built CONCURRENTLY, then attached as constraints (a brief lock);
 * - the column is added without a default (no rewrite), filled in batches by id, each batch its
 *   own short transaction. The change feed's capture is off for the batch inside that transaction
 *   only (no other session ever sees it off, and writers of the table wait for the batch): the
 *   records did not change, so the feed must not say they did;
 * - NOT NULL comes from a CHECK added NOT VALID and validated (no lock that stops reads or
 *   writes), which lets SET NOT NULL skip its scan;
 * - the foreign keys are added NOT VALID and validated the same way, then the single-column ones
 *   they replace are dropped.
 */

const BATCH = 10_000;

interface Owned {
  readonly table: string;
  /** Every owner has an enterprise: the column is NOT NULL and the composite reference replaces the single one. */
  readonly always: boolean;
  /** The owner columns and the tables they point at. */
  readonly owners: readonly { readonly column: string; readonly table: string }[];
  /** The statement-level trigger that captures an update for the change feed, if any. */
  readonly captureTrigger?: string;
}

const PERSON = { column: 'person_id', table: 'people' };
const ORGANISATION = { column: 'organisation_id', table: 'organisations' };

const OWNED: readonly Owned[] = [
  {
    table: 'phone_numbers',
    always: false,
    owners: [PERSON, ORGANISATION],
    captureTrigger: 'phone_numbers_changes_update',
  },
  { table: 'emails', always: false, owners: [PERSON, ORGANISATION], captureTrigger: 'emails_changes_update' },
  { table: 'addresses', always: false, owners: [PERSON, ORGANISATION], captureTrigger: 'addresses_changes_update' },
  { table: 'financials', always: false, owners: [PERSON], captureTrigger: 'financials_changes_update' },
  { table: 'webhook_deliveries', always: true, owners: [{ column: 'endpoint_id', table: 'webhook_endpoints' }] },
];

const OWNER_TABLES = ['people', 'organisations', 'webhook_endpoints'];

/** A unique `(enterprise_id, id)` built without blocking writes; an invalid leftover of a failed try is rebuilt. */
async function uniqueEnterpriseId(q: QueryRunner, table: string): Promise<void> {
  const name = `${table}_enterprise_id_id_key`;
  if (await constraintExists(q, table, name)) return;
  const valid = (await q.query(
    `SELECT i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = $1`,
    [name],
  )) as { valid: boolean }[];
  if (valid[0]?.valid === false) await q.query(`DROP INDEX CONCURRENTLY ${name}`);
  if (valid[0]?.valid !== true)
    await q.query(`CREATE UNIQUE INDEX CONCURRENTLY ${name} ON ${table} (enterprise_id, id)`);
  await q.query(`ALTER TABLE ${table} ADD CONSTRAINT ${name} UNIQUE USING INDEX ${name}`);
}

/** The owner's enterprise, for the row `x`. */
function ownersEnterprise(owned: Owned): string {
  const lookups = owned.owners.map(
    (owner) => `(SELECT o.enterprise_id FROM ${owner.table} o WHERE o.id = x.${owner.column})`,
  );
  return lookups.length === 1 ? (lookups[0] ?? '') : `COALESCE(${lookups.join(', ')})`;
}

/** Fills `enterprise_id` batch by batch, in id order; each batch commits on its own. */
async function backfill(q: QueryRunner, owned: Owned): Promise<void> {
  const unfilled = `SELECT 1 FROM ${owned.table} x WHERE x.enterprise_id IS NULL AND ${ownersEnterprise(owned)} IS NOT NULL`;
  if (!(await anyRow(q, unfilled))) return;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    await q.startTransaction();
    try {
      if (owned.captureTrigger) await q.query(`ALTER TABLE ${owned.table} DISABLE TRIGGER ${owned.captureTrigger}`);
      const rows = (await q.query(
        `WITH batch AS (SELECT id FROM ${owned.table} WHERE id > $1 ORDER BY id LIMIT ${BATCH}),
              filled AS (
                UPDATE ${owned.table} x SET enterprise_id = ${ownersEnterprise(owned)}
                 WHERE x.id IN (SELECT id FROM batch) AND x.enterprise_id IS NULL)
         SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1)::text AS last`,
        [after],
      )) as { last: string | null }[];
      if (owned.captureTrigger) await q.query(`ALTER TABLE ${owned.table} ENABLE TRIGGER ${owned.captureTrigger}`);
      await q.commitTransaction();
      const last = rows[0]?.last ?? null;
      if (last === null) return;
      after = last;
    } catch (error) {
      await q.rollbackTransaction();
      throw error;
    }
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

async function compositeReferences(q: QueryRunner, owned: Owned): Promise<void> {
  for (const owner of owned.owners) {
    const name = `${owned.table}_enterprise_id_${owner.column}_fkey`;
    if (!(await constraintExists(q, owned.table, name))) {
      await q.query(
        `ALTER TABLE ${owned.table} ADD CONSTRAINT ${name} FOREIGN KEY (enterprise_id, ${owner.column})
           REFERENCES ${owner.table} (enterprise_id, id) ON DELETE CASCADE ON UPDATE CASCADE NOT VALID`,
      );
    }
    if (!(await constraintValid(q, owned.table, name))) {
      await q.query(`ALTER TABLE ${owned.table} VALIDATE CONSTRAINT ${name}`);
    }
    const single = `${owned.table}_${owner.column}_fkey`;
    if (owned.always && (await constraintExists(q, owned.table, single))) {
      await q.query(`ALTER TABLE ${owned.table} DROP CONSTRAINT ${single}`);
    }
  }
}

/**
 * A row written without its enterprise takes its owner's; only such rows call it (the trigger's
 * WHEN), so a writer that sets the column pays nothing. It also covers the rows the previous
 * release writes while this migration runs.
 */
function enterpriseFromOwner(owned: Owned): string {
  const owner = ownersEnterprise(owned).replaceAll('x.', 'NEW.');
  return `CREATE OR REPLACE FUNCTION ${owned.table}_enterprise_from_owner() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.enterprise_id := ${owner};
      RETURN NEW;
    END $$`;
}

const ENTERPRISE_FROM_OWNER_TRIGGER = (table: string): string =>
  `CREATE TRIGGER ${table}_enterprise_from_owner BEFORE INSERT OR UPDATE ON ${table}
     FOR EACH ROW WHEN (NEW.enterprise_id IS NULL) EXECUTE FUNCTION ${table}_enterprise_from_owner()`;

/** The rows of an owner that had no enterprise follow it into its first one. */
const ADOPT_ROWS = (owner: 'people' | 'organisations'): string => {
  const column = owner === 'people' ? 'person_id' : 'organisation_id';
  const tables = OWNED.filter((o) => !o.always && o.owners.some((x) => x.table === owner)).map((o) => o.table);
  return `CREATE OR REPLACE FUNCTION ${owner}_rows_follow_enterprise() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${tables.map((t) => `UPDATE ${t} SET enterprise_id = NEW.enterprise_id WHERE ${column} = NEW.id AND enterprise_id IS NULL;`).join('\n      ')}
      RETURN NULL;
    END $$`;
};

const ADOPT_TRIGGER = (owner: 'people' | 'organisations'): string =>
  `CREATE TRIGGER ${owner}_rows_follow_enterprise AFTER UPDATE OF enterprise_id ON ${owner}
     FOR EACH ROW WHEN (OLD.enterprise_id IS NULL AND NEW.enterprise_id IS NOT NULL)
     EXECUTE FUNCTION ${owner}_rows_follow_enterprise()`;

export class TenancyInTheKeys1765200000000 implements MigrationInterface {
  name = 'TenancyInTheKeys1765200000000';
  /** CREATE INDEX CONCURRENTLY cannot run in a transaction; each step below is short on its own. */
  transaction = false;

  public async up(q: QueryRunner): Promise<void> {
    for (const table of OWNER_TABLES) await uniqueEnterpriseId(q, table);
    for (const owned of OWNED) {
      if (!(await columnExists(q, owned.table, 'enterprise_id'))) {
        await q.query(`ALTER TABLE ${owned.table} ADD COLUMN enterprise_id uuid`);
      }
    }
    for (const owned of OWNED) {
      await q.query(enterpriseFromOwner(owned));
      if (!(await triggerExists(q, owned.table, `${owned.table}_enterprise_from_owner`))) {
        await q.query(ENTERPRISE_FROM_OWNER_TRIGGER(owned.table));
      }
    }
    for (const owner of ['people', 'organisations'] as const) {
      await q.query(ADOPT_ROWS(owner));
      if (!(await triggerExists(q, owner, `${owner}_rows_follow_enterprise`))) await q.query(ADOPT_TRIGGER(owner));
    }
    for (const owned of OWNED) {
      await backfill(q, owned);
      if (owned.always) await notNull(q, owned.table);
      await compositeReferences(q, owned);
    }
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const owner of ['people', 'organisations'] as const) {
      await q.query(`DROP TRIGGER ${owner}_rows_follow_enterprise ON ${owner}`);
      await q.query(`DROP FUNCTION ${owner}_rows_follow_enterprise()`);
    }
    for (const owned of OWNED) {
      await q.query(`DROP TRIGGER ${owned.table}_enterprise_from_owner ON ${owned.table}`);
      await q.query(`DROP FUNCTION ${owned.table}_enterprise_from_owner()`);
      for (const owner of owned.always ? owned.owners : []) {
        await q.query(
          `ALTER TABLE ${owned.table} ADD CONSTRAINT ${owned.table}_${owner.column}_fkey FOREIGN KEY (${owner.column})
             REFERENCES ${owner.table} (id) ON DELETE CASCADE`,
        );
      }
      await q.query(`ALTER TABLE ${owned.table} DROP COLUMN enterprise_id`);
    }
    for (const table of OWNER_TABLES) {
      await q.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_enterprise_id_id_key`);
    }
  }
}
