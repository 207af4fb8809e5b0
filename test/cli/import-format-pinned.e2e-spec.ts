import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { importDocument } from '../../src/cli/import/importer.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The applications section is derived from the Application entity: every answer the import gave
 * when the section was written by hand stays exactly the same (the messages below were recorded
 * from the hand-written section), and a valid file stores the same values.
 */
describe('applications section derived from its entity', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
  const enterprise = randomUUID();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
    const outcome = await importDocument(dataSource, cipher, {
      enterprises: [{ id: enterprise, name: 'Pinned Finance' }],
    });
    expect(outcome.ok).toBe(true);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  it('reports every kind of bad field with the messages of the hand-written section', async () => {
    const outcome = await importDocument(dataSource, cipher, {
      applications: [
        { enterprise_id: enterprise },
        { id: 'not-a-uuid', enterprise_id: null },
        { id: randomUUID() },
        {
          id: randomUUID(),
          enterprise_id: enterprise,
          settlement_date_actual: '2024-13-01',
          contract_number: 'x'.repeat(256),
          source_of_business: 42,
          crm_deal_id: true,
          created_at: 'yesterday',
          colour: 'blue',
        },
        { id: randomUUID(), enterprise_id: enterprise, settlement_date_actual: 20240101, updated_at: 7 },
      ],
    });
    expect(outcome).toEqual({
      ok: false,
      problemCount: PINNED_PROBLEMS.length,
      problems: PINNED_PROBLEMS,
    });
  });

  it('stores, reads back and re-imports a valid record unchanged', async () => {
    const id = randomUUID();
    const record = {
      id,
      enterprise_id: enterprise,
      settlement_date_actual: '2025-02-28',
      contract_number: 'C-1',
      source_of_business: 'Référé 🚗',
      crm_deal_id: null,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-02T00:00:00.000Z',
    };
    const first = await importDocument(dataSource, cipher, { applications: [record] });
    expect(first.ok && first.counts.applications).toEqual({ total: 1, created: 1, updated: 0 });
    const [row] = await selectRows<Record<string, unknown>>(
      dataSource,
      `SELECT enterprise_id, settlement_date_actual::text AS settlement_date_actual, contract_number,
              source_of_business, crm_deal_id, created_at, updated_at
         FROM applications WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({
      enterprise_id: enterprise,
      settlement_date_actual: '2025-02-28',
      contract_number: 'C-1',
      source_of_business: 'Référé 🚗',
      crm_deal_id: null,
      created_at: new Date('2025-01-01T00:00:00.000Z'),
      updated_at: new Date('2025-01-02T00:00:00.000Z'),
    });
    const again = await importDocument(dataSource, cipher, { applications: [record] });
    expect(again.ok && again.counts.applications).toEqual({ total: 1, created: 0, updated: 0 });
    const { contract_number: _dropped, ...withoutContract } = record;
    const changed = await importDocument(dataSource, cipher, { applications: [withoutContract] });
    expect(changed.ok && changed.counts.applications).toEqual({ total: 1, created: 0, updated: 1 });
    const [cleared] = await selectRows<{ contract_number: string | null }>(
      dataSource,
      `SELECT contract_number FROM applications WHERE id = $1`,
      [id],
    );
    expect(cleared?.contract_number).toBeNull();
  });
});

const PINNED_PROBLEMS = [
  'applications[0].id: is required',
  'applications[1].id: must be a UUID',
  'applications[1].enterprise_id: is required',
  'applications[2].enterprise_id: is required',
  'applications[3].settlement_date_actual: must be a date (YYYY-MM-DD)',
  'applications[3].contract_number: must not be greater than 255 characters',
  'applications[3].source_of_business: is required',
  'applications[3].crm_deal_id: is required',
  'applications[3].created_at: must be an ISO 8601 timestamp with a time zone',
  'applications[3].colour: is not a known field',
  'applications[4].settlement_date_actual: is required',
  'applications[4].updated_at: is required',
];
