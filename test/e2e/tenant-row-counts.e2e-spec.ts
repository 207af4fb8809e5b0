import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { importDocument } from '../../src/cli/import/importer.js';
import { FieldCipher } from '../../src/common/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/database/migration-runner.js';
import { selectRows } from '../../src/database/sql.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const TABLES = ['people', 'organisations', 'applications', 'quotes', 'leads'] as const;

describe('trigger-kept tenant row counts (meta.total, issue 9)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
  const one = randomUUID();
  const two = randomUUID();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  /** The counters must always equal a real count, for every enterprise and table. */
  async function expectCountersExact(): Promise<void> {
    for (const table of TABLES) {
      const real = await selectRows<{ enterprise_id: string; n: number }>(
        dataSource,
        `SELECT enterprise_id, count(*)::int AS n FROM ${table} WHERE enterprise_id IS NOT NULL GROUP BY 1 ORDER BY 1`,
      );
      const kept = await selectRows<{ enterprise_id: string; n: number }>(
        dataSource,
        `SELECT enterprise_id, row_count::int AS n FROM tenant_row_counts WHERE table_name = $1 AND row_count <> 0 ORDER BY 1`,
        [table],
      );
      expect(kept).toEqual(real);
    }
  }

  it('follows inserts of whole files, single inserts, moves between enterprises, deletes and cascades', async () => {
    const application = randomUUID();
    const people = Array.from({ length: 30 }, (_, i) => ({ id: randomUUID(), enterprise_id: i % 3 === 0 ? two : one }));
    const outcome = await importDocument(dataSource, cipher, {
      enterprises: [
        { id: one, name: 'One' },
        { id: two, name: 'Two' },
      ],
      people,
      organisations: [{ id: randomUUID(), enterprise_id: one, legal_name: 'Org' }],
      applications: [{ id: application, enterprise_id: one }],
      quotes: [{ id: randomUUID(), enterprise_id: one, application_id: application }],
      leads: [{ id: randomUUID(), enterprise_id: two, title: 'Lead' }],
    });
    expect(outcome.ok).toBe(true);
    await expectCountersExact();

    await dataSource.query(`INSERT INTO leads (enterprise_id, title) VALUES ($1, 'API lead')`, [one]);
    await dataSource.query(`UPDATE people SET enterprise_id = $2 WHERE id = $1`, [people[1]?.id, two]);
    await dataSource.query(`UPDATE people SET last_name = 'Renamed' WHERE enterprise_id = $1`, [one]);
    await dataSource.query(`DELETE FROM people WHERE id = ANY($1::uuid[])`, [people.slice(5, 12).map((p) => p.id)]);
    await expectCountersExact();

    // Deleting an application cascades to its quotes; deleting an enterprise to everything.
    await dataSource.query(`DELETE FROM applications WHERE id = $1`, [application]);
    await dataSource.query(`DELETE FROM enterprises WHERE id = $1`, [two]);
    await expectCountersExact();
    const orphans = await selectRows(dataSource, `SELECT 1 FROM tenant_row_counts WHERE enterprise_id = $1`, [two]);
    expect(orphans).toEqual([]);
  });
});
