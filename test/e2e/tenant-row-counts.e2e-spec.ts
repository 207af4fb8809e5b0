import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { importDocument } from '../../src/cli/import/importer.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { foldTenantCounts } from '../../src/database/count-folder.js';
import { selectRows } from '../../src/database/sql.js';
import { countForEnterprise } from '../../src/database/tenant-page.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** Every tenant table a list is read from, by the descriptors. */
const TABLES = TENANT_RESOURCES.flatMap((resource) => (resource.rows.table === undefined ? [] : [resource.rows.table]));

describe('trigger-kept tenant row counts (meta.total) and list versions', () => {
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

  /**
   * The counts a list reads (folded base plus the deltas since) must always equal a real count,
   * for every enterprise and table, before and after a fold; after a fold no delta is left.
   */
  async function expectCountersExact(): Promise<void> {
    await expectCountsReadExact();
    await foldTenantCounts(dataSource);
    await expectCountsReadExact();
    const left = await selectRows(dataSource, `SELECT 1 FROM tenant_count_deltas`);
    expect(left).toEqual([]);
  }

  async function expectCountsReadExact(): Promise<void> {
    const enterprises = await selectRows<{ id: string }>(dataSource, `SELECT id FROM enterprises ORDER BY id`);
    for (const table of TABLES) {
      const real = await selectRows<{ enterprise_id: string; n: number }>(
        dataSource,
        `SELECT enterprise_id, count(*)::int AS n FROM ${table} WHERE enterprise_id IS NOT NULL GROUP BY 1 ORDER BY 1`,
      );
      const read: { enterprise_id: string; n: number }[] = [];
      for (const { id } of enterprises) {
        const { total } = await countForEnterprise(dataSource, table, id);
        if (total !== 0) read.push({ enterprise_id: id, n: total });
      }
      expect(read).toEqual(real);
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

  it('stay exact under concurrent inserts, deletes and moves across enterprises, with folds running and one killed midway', async () => {
    const enterprises = [randomUUID(), randomUUID(), randomUUID()];
    await dataSource.query(`INSERT INTO enterprises (id, name) SELECT unnest($1::uuid[]), 'Busy'`, [enterprises]);
    const pick = (i: number): string => enterprises[i % enterprises.length] as string;
    const versions = new Map<string, number>();
    let writing = true;
    /** Versions read meanwhile never go back. */
    const reader = (async () => {
      while (writing) {
        for (const enterprise of enterprises) {
          const version = Number((await countForEnterprise(dataSource, 'leads', enterprise)).version);
          expect(version).toBeGreaterThanOrEqual(versions.get(enterprise) ?? 0);
          versions.set(enterprise, version);
        }
      }
    })();
    const folder = (async () => {
      for (let round = 0; writing; round++) {
        if (round % 3 === 1) {
          // A fold whose transaction never commits (a process killed mid-fold): nothing of it stays.
          const runner = dataSource.createQueryRunner();
          await runner.startTransaction();
          await runner.query(`SELECT tenant_counts_fold(50)`);
          await runner.rollbackTransaction();
          await runner.release();
        } else {
          await foldTenantCounts(dataSource);
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < 60; i++) {
        const enterprise = pick(w + i);
        await dataSource.query(
          `INSERT INTO leads (enterprise_id, title) SELECT $1, 'Busy ' || g FROM generate_series(1, $2::int) g`,
          [enterprise, 1 + (i % 4)],
        );
        if (i % 3 === 0) {
          await dataSource.query(
            `DELETE FROM leads WHERE id IN (SELECT id FROM leads WHERE enterprise_id = $1 ORDER BY random() LIMIT 2)`,
            [enterprise],
          );
        }
        if (i % 5 === 0) {
          await dataSource.query(
            `UPDATE leads SET enterprise_id = $2 WHERE id IN (SELECT id FROM leads WHERE enterprise_id = $1 LIMIT 1)`,
            [enterprise, pick(w + i + 1)],
          );
        }
      }
    };
    const before = new Map<string, number>();
    for (const enterprise of enterprises) {
      before.set(enterprise, Number((await countForEnterprise(dataSource, 'leads', enterprise)).version));
    }
    await Promise.all(Array.from({ length: 8 }, (_, w) => writer(w)));
    writing = false;
    await Promise.all([reader, folder]);
    await expectCountersExact();
    for (const enterprise of enterprises) {
      expect(Number((await countForEnterprise(dataSource, 'leads', enterprise)).version)).toBeGreaterThan(
        before.get(enterprise) ?? 0,
      );
    }
  });
});
