import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { openDataSource, runMigrations } from '../../src/database/migration-runner.js';
import { MIGRATIONS } from '../../src/database/migrations.js';
import { selectRows } from '../../src/database/sql.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const TABLES = [
  'access_tokens',
  'addresses',
  'applications',
  'emails',
  'enterprises',
  'financials',
  'key_check',
  'leads',
  'memberships',
  'organisations',
  'people',
  'phone_numbers',
  'quotes',
  'signing_documents',
  'tenant_row_counts',
  'typeorm_migrations',
  'users',
];

async function tables(dataSource: DataSource): Promise<string[]> {
  const rows = await selectRows<{ table_name: string }>(
    dataSource,
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
  );
  return rows.map((r) => r.table_name);
}

describe('migrations', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await acquireTestDatabase({ migrated: false });
    dataSource = await openDataSource(database);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  it('build the whole schema from an empty database, then have nothing left to do', async () => {
    expect(await tables(dataSource)).toEqual([]);
    expect(await runMigrations(dataSource)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await tables(dataSource)).toEqual(TABLES);
    expect(await runMigrations(dataSource)).toEqual([]);
  });

  it('create the newest-first index of every tenant table (R7)', async () => {
    const rows = await selectRows<{ indexname: string; indexdef: string }>(
      dataSource,
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname LIKE '%_enterprise_newest_idx'`,
    );
    expect(rows.map((r) => r.indexname).sort()).toEqual([
      'applications_enterprise_newest_idx',
      'leads_enterprise_newest_idx',
      'organisations_enterprise_newest_idx',
      'people_enterprise_newest_idx',
      'quotes_enterprise_newest_idx',
    ]);
    for (const row of rows) expect(row.indexdef).toContain('(enterprise_id, created_at DESC, id DESC)');
  });

  it('keep signing documents unique per provider and statuses within each provider', async () => {
    await dataSource.query(`INSERT INTO enterprises (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'E')`);
    const insert = (id: string, provider: string, external: string, status: string) =>
      dataSource.query(
        `INSERT INTO signing_documents (id, enterprise_id, provider, external_id, status)
         VALUES ($1, '00000000-0000-4000-8000-000000000001', $2, $3, $4)`,
        [id, provider, external, status],
      );
    await insert('00000000-0000-4000-8000-0000000000a1', 'a', 'doc-1', 'sent');
    await insert('00000000-0000-4000-8000-0000000000b1', 'b', 'doc-1', 'delivered');
    await expect(insert('00000000-0000-4000-8000-0000000000a2', 'a', 'doc-1', 'sent')).rejects.toThrow(
      /signing_documents_external_key/,
    );
    await expect(insert('00000000-0000-4000-8000-0000000000a3', 'a', 'doc-3', 'completed')).rejects.toThrow(
      /signing_documents_status_check/,
    );
  });

  it('roll back to empty', async () => {
    for (let i = 0; i < MIGRATIONS.length; i++) await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await tables(dataSource)).toEqual(['typeorm_migrations']);
  });
});
