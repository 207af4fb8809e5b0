import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Check, Column, Entity, ForeignKey, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { APPLICATIONS } from '../../src/applications/applications.resource.js';
import { ResourceValidationException } from '../../src/common/http/validation-failed.exception.js';
import { RecordNotFoundException } from '../../src/common/http/record-not-found.exception.js';
import { TimestampColumn, VarcharColumn } from '../../src/database/columns.js';
import { allColumnsOf } from '../../src/database/entity-columns.js';
import { selectRows } from '../../src/database/sql.js';
import { Person } from '../../src/people/entities/person.entity.js';
import { tenantTableRows } from '../../src/resources/row-sources.js';
import type { TenantResource } from '../../src/resources/tenant-resource.js';
import { TableWrites } from '../../src/writes/table-writes.js';
import { importFixture } from '../helpers/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { twoTenants } from '../helpers/two-tenants.js';

/** A table of this test only: a required reference to a person of the same enterprise and an order of two columns. */
@Entity('table_write_visits')
@Check('table_write_visits_ends_after_start', '"ends_at" > "starts_at"')
@ForeignKey(() => Person, ['enterpriseId', 'personId'], ['enterpriseId', 'id'])
class Visit {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @PrimaryColumn('uuid') enterpriseId!: string;
  @Column('uuid') personId!: string;
  @VarcharColumn() title!: string;
  @TimestampColumn() startsAt!: Date;
  @TimestampColumn() endsAt!: Date;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}

interface VisitRow {
  id: string;
  enterprise_id: string;
  person_id: string;
  title: string;
  starts_at: Date;
  ends_at: Date;
}

const VISITS: TenantResource<VisitRow, { id: string; title: string; ends_at: string }> = {
  ...(APPLICATIONS as unknown as TenantResource<VisitRow, { id: string; title: string; ends_at: string }>),
  path: 'table_write_visits',
  model: 'Visit',
  entity: Visit,
  rows: tenantTableRows({ table: 'table_write_visits', alias: 'v', columns: allColumnsOf(Visit, 'v') }),
  present: (rows) =>
    Promise.resolve(rows.map((row) => ({ id: row.id, title: row.title, ends_at: row.ends_at.toISOString() }))),
};

/**
 * TableWrites, the create and update of a record that is one row of its table, against the real
 * database: references checked in the enterprise, an order CHECK broken answered at its field,
 * the record read back through the descriptor.
 */
describe('TableWrites', () => {
  let t: TestApp;
  let writes: TableWrites;
  const { doc, own, foreign } = twoTenants();
  const valid = () => ({
    person_id: own.ids.people,
    title: 'First meeting',
    starts_at: '2030-01-02T09:00:00.000Z',
    ends_at: '2030-01-02T10:00:00.000Z',
  });

  beforeAll(async () => {
    t = await createTestApp();
    await importFixture(t, doc);
    await t.dataSource.query(`
      CREATE TABLE table_write_visits (
        id uuid NOT NULL, enterprise_id uuid NOT NULL, person_id uuid NOT NULL, title varchar(255) NOT NULL,
        starts_at timestamptz(3) NOT NULL, ends_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(), updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (id, enterprise_id),
        CONSTRAINT table_write_visits_ends_after_start CHECK (ends_at > starts_at),
        FOREIGN KEY (enterprise_id, person_id) REFERENCES people (enterprise_id, id))`);
    writes = t.app.get(TableWrites);
  });
  afterAll(async () => {
    await t.dataSource.query(`DROP TABLE IF EXISTS table_write_visits`);
    await t.close();
  });

  const stored = async () =>
    (await selectRows<{ n: number }>(t.dataSource, `SELECT count(*)::int AS n FROM table_write_visits`))[0]?.n;

  /** The field errors a write was refused with; anything else is shown as what it was, for the diff. */
  async function refusal(write: () => Promise<unknown>): Promise<Record<string, unknown>> {
    try {
      await write();
      return { written: 'the write was accepted' };
    } catch (error) {
      if (error instanceof ResourceValidationException) return error.errors;
      return { notAValidationError: String(error) };
    }
  }

  it('creates the row in the enterprise and answers it as the descriptor presents it', async () => {
    const record = await writes.create(VISITS, own.enterpriseId, valid(), t.dataSource);
    expect(record).toEqual({ id: expect.any(String), title: 'First meeting', ends_at: '2030-01-02T10:00:00.000Z' });
    const [row] = await selectRows<{ enterprise_id: string }>(
      t.dataSource,
      `SELECT enterprise_id FROM table_write_visits WHERE id = $1`,
      [record.id],
    );
    expect(row?.enterprise_id).toBe(own.enterpriseId);
  });

  it("refuses a reference to another enterprise's record or to none, naming the field, writing nothing", async () => {
    const before = await stored();
    for (const person of [foreign.ids.people, randomUUID()]) {
      expect(
        await refusal(() => writes.create(VISITS, own.enterpriseId, { ...valid(), person_id: person }, t.dataSource)),
      ).toEqual({
        person_id: ['The selected person id is invalid.'],
      });
    }
    expect(await stored()).toBe(before);
  });

  it('answers a row that breaks the order at the later field, on create and on an update of one of the two', async () => {
    expect(
      await refusal(() =>
        writes.create(VISITS, own.enterpriseId, { ...valid(), ends_at: '2030-01-02T09:00:00.000Z' }, t.dataSource),
      ),
    ).toEqual({ ends_at: ['The ends at field must be a date after starts at.'] });
    const { id } = await writes.create(VISITS, own.enterpriseId, valid(), t.dataSource);
    expect(
      await refusal(() =>
        writes.update(VISITS, id, own.enterpriseId, { starts_at: '2030-01-02T11:00:00.000Z' }, t.dataSource),
      ),
    ).toEqual({ ends_at: ['The ends at field must be a date after starts at.'] });
    const updated = await writes.update(
      VISITS,
      id,
      own.enterpriseId,
      { title: 'Moved', ends_at: '2030-01-02T12:00:00.000Z' },
      t.dataSource,
    );
    expect(updated).toEqual({ id, title: 'Moved', ends_at: '2030-01-02T12:00:00.000Z' });
  });

  it('answers an update of a record of another enterprise (or none) as not found, changing nothing', async () => {
    const { id } = await writes.create(VISITS, own.enterpriseId, valid(), t.dataSource);
    await expect(
      writes.update(VISITS, id, foreign.enterpriseId, { title: 'Taken' }, t.dataSource),
    ).rejects.toBeInstanceOf(RecordNotFoundException);
    const [row] = await selectRows<{ title: string }>(
      t.dataSource,
      `SELECT title FROM table_write_visits WHERE id = $1`,
      [id],
    );
    expect(row?.title).toBe('First meeting');
  });

  it('refuses a value for a column the table does not have (a pipe that let a field through unchecked)', async () => {
    await expect(writes.create(VISITS, own.enterpriseId, { ...valid(), color: 'red' }, t.dataSource)).rejects.toThrow(
      'table_write_visits has no column color',
    );
  });
});
