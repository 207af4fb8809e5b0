import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { importReferencesOf, type ImportReference } from '../cli/import/import-references.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { ResourceValidationException } from '../common/http/validation-failed.exception.js';
import { FieldCipher } from '../crypto/field-cipher.js';
import { crossColumnChecks, type ColumnOrder } from '../database/column-order-checks.js';
import { columnNamesOf } from '../database/entity-columns.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { sqlStateOf } from '../database/sql-state.js';
import type { TenantResource } from '../resources/tenant-resource.js';
import { fieldLabel } from './write-rules.js';

/** Columns a write never takes from a body: the record's own, set here. */
const SET_HERE = new Set(['id', 'enterprise_id', 'created_at', 'updated_at']);
const CHECK_VIOLATION = '23514';

interface TableFacts {
  readonly table: string;
  readonly columns: ReadonlySet<string>;
  readonly references: readonly ImportReference[];
  readonly orders: readonly ColumnOrder[];
}

const FACTS = new WeakMap<TenantResource, TableFacts>();

function factsOf(resource: TenantResource): TableFacts {
  const known = FACTS.get(resource);
  if (known) return known;
  const table = resource.rows.table;
  if (table === undefined)
    throw new Error(`${resource.path}: only a tenant table's records can be written by TableWrites`);
  const facts: TableFacts = {
    table,
    columns: new Set(columnNamesOf(resource.entity)),
    references: importReferencesOf(resource),
    orders: crossColumnChecks(resource.entity).orders,
  };
  FACTS.set(resource, facts);
  return facts;
}

/**
 * Create and update of a resource whose record is one row of its table, for its controllers:
 * plain SQL over the entity's columns (the validated values, by column name), the references the
 * entity declares checked in the header's enterprise first (a 400 naming the field, never a
 * database error), an order CHECK across columns that the row breaks answered the same way, and
 * the record read back and presented as its reads present it. `db` is the idempotent write's
 * transaction.
 */
@Injectable()
export class TableWrites {
  constructor(private readonly cipher: FieldCipher) {}

  async create<Rec extends { id: string }>(
    resource: TenantResource<{ id: string }, Rec>,
    enterpriseId: string,
    values: Readonly<Record<string, unknown>>,
    db: SqlExecutor,
  ): Promise<Rec> {
    const { facts, names, parameters } = await this.checked(resource, enterpriseId, values, db);
    const id = randomUUID();
    await this.refusingBrokenOrders(facts, () =>
      db.query(
        `INSERT INTO ${facts.table} (id, enterprise_id${names.map((name) => `, ${name}`).join('')})
         VALUES ($1, $2${names.map((_, i) => `, $${i + 3}`).join('')})`,
        [id, enterpriseId, ...parameters],
      ),
    );
    return this.presented(resource, id, enterpriseId, db);
  }

  async update<Rec extends { id: string }>(
    resource: TenantResource<{ id: string }, Rec>,
    id: string,
    enterpriseId: string,
    values: Readonly<Record<string, unknown>>,
    db: SqlExecutor,
  ): Promise<Rec> {
    const { facts, names, parameters } = await this.checked(resource, enterpriseId, values, db);
    // TypeORM answers an UPDATE with [rows, affected count].
    const [updated] = (await this.refusingBrokenOrders(facts, () =>
      db.query(
        `UPDATE ${facts.table} SET ${names.map((name, i) => `${name} = $${i + 3}, `).join('')}updated_at = now()
          WHERE id = $1 AND enterprise_id = $2 RETURNING id`,
        [id, enterpriseId, ...parameters],
      ),
    )) as [{ id: string }[], number];
    if (updated.length === 0) throw new RecordNotFoundException(resource.model, id);
    return this.presented(resource, id, enterpriseId, db);
  }

  /** The table's facts, the columns written and their values, once the references are checked. */
  private async checked(
    resource: TenantResource,
    enterpriseId: string,
    values: Readonly<Record<string, unknown>>,
    db: SqlExecutor,
  ): Promise<{ facts: TableFacts; names: string[]; parameters: unknown[] }> {
    const facts = factsOf(resource);
    const names = this.columnsOf(facts, values);
    await this.checkReferences(facts, enterpriseId, values, db);
    return { facts, names, parameters: names.map((name) => values[name]) };
  }

  /** The columns written: every value's key must be one of the table's (the pipe copies only known fields). */
  private columnsOf(facts: TableFacts, values: Readonly<Record<string, unknown>>): string[] {
    const names = Object.keys(values).filter((name) => !SET_HERE.has(name));
    const unknown = names.filter((name) => !facts.columns.has(name));
    if (unknown.length > 0) throw new Error(`${facts.table} has no column ${unknown.join(', ')}`);
    return names;
  }

  /** Each reference given must name a record of the same enterprise: one statement for all of them. */
  private async checkReferences(
    facts: TableFacts,
    enterpriseId: string,
    values: Readonly<Record<string, unknown>>,
    db: SqlExecutor,
  ): Promise<void> {
    const given = facts.references.filter((reference) => typeof values[reference.column] === 'string');
    if (given.length === 0) return;
    const [found] = await selectRows<Record<string, boolean>>(
      db,
      `SELECT ${given
        .map(
          (reference, i) =>
            `EXISTS (SELECT 1 FROM ${reference.section} WHERE enterprise_id = $1 AND id = $${i + 2}) AS ${reference.column}`,
        )
        .join(', ')}`,
      [enterpriseId, ...given.map((reference) => values[reference.column])],
    );
    const missing = given.filter((reference) => found?.[reference.column] !== true);
    if (missing.length > 0) {
      throw new ResourceValidationException(
        Object.fromEntries(
          missing.map((reference) => [reference.column, [`The selected ${fieldLabel(reference.column)} is invalid.`]]),
        ),
      );
    }
  }

  /** A row that breaks an order CHECK (an update of one of the two columns can) is the body's error. */
  private async refusingBrokenOrders<T>(facts: TableFacts, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      const { constraint, driverError } = error as { constraint?: unknown; driverError?: { constraint?: unknown } };
      const name = constraint ?? driverError?.constraint;
      const broken =
        sqlStateOf(error) === CHECK_VIOLATION ? facts.orders.find((order) => order.check === name) : undefined;
      if (!broken) throw error;
      const after = broken.orEqual ? 'after or equal to' : 'after';
      throw new ResourceValidationException({
        [broken.later]: [
          `The ${fieldLabel(broken.later)} field must be a date ${after} ${fieldLabel(broken.earlier)}.`,
        ],
      });
    }
  }

  private async presented<Rec extends { id: string }>(
    resource: TenantResource<{ id: string }, Rec>,
    id: string,
    enterpriseId: string,
    db: SqlExecutor,
  ): Promise<Rec> {
    const rows = await resource.rows.rowsByIds(db, [id], enterpriseId);
    const [record] = await resource.present(rows, { db, cipher: this.cipher, enterpriseId });
    if (!record) throw new Error(`${resource.path} ${id} was written but could not be read back`);
    return record;
  }
}
