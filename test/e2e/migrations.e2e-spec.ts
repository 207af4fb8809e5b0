import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { getMetadataArgsStorage, DataSource as TypeOrmDataSource } from 'typeorm';
import { ENTITIES } from '../../src/entities.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { dataSourceOptions } from '../../src/data-source.js';
import { runMigrations } from '../../src/database/migration-runner.js';
import { openDataSource } from '../../src/data-source.js';
import { MIGRATIONS } from '../../src/database/migrations.js';
import { captureFunctionSql, ownRecords } from '../../src/database/change-capture.js';
import { selectRows } from '../../src/database/sql.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Every table has an entity (test/e2e/entities-match-migrations), but TypeORM's own and
 * change_log (an xid8 column TypeORM cannot declare; see src/entities.ts).
 */
const TABLES = [
  ...getMetadataArgsStorage()
    .tables.filter((table) => ENTITIES.includes(table.target as (typeof ENTITIES)[number]))
    .map((table) => String(table.name)),
  'change_log',
  'typeorm_metadata',
  'typeorm_migrations',
].sort();

/** The tables lists are read from. */
const TENANT_TABLES = TENANT_RESOURCES.flatMap((resource) => (resource.rows.table ? [resource.rows.table] : []));

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

  it("give every capture function the once-per-transaction condition, in the words new tables' functions get", async () => {
    const generated = captureFunctionSql(ownRecords('people', 'person'));
    const condition = /changed_at = EXCLUDED\.changed_at (WHERE NOT coalesce\([\s\S]*?, false\))/.exec(generated)?.[1];
    expect(condition).toBeDefined();
    const functions = await selectRows<{ name: string; source: string }>(
      dataSource,
      `SELECT proname AS name, prosrc AS source FROM pg_proc WHERE proname LIKE 'change\\_log\\_capture\\_%'`,
    );
    expect(functions.length).toBeGreaterThan(5);
    for (const { name, source } of functions) {
      expect({ name, upserts: source.split('ON CONFLICT').length - 1 }).toEqual({
        name,
        upserts: source.split(condition ?? '-').length - 1,
      });
    }
  });

  it('create the newest-first index of every tenant table', async () => {
    const rows = await selectRows<{ indexname: string; indexdef: string }>(
      dataSource,
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname LIKE '%_enterprise_newest_idx'`,
    );
    expect(TENANT_TABLES.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.indexname).sort()).toEqual(
      TENANT_TABLES.map((table) => `${table}_enterprise_newest_idx`).sort(),
    );
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

describe('the change log migration', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await acquireTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await database.release();
  });

  it('back-fills every existing record, so a feed read from the beginning lists the whole enterprise', async () => {
    const changeLogAt = MIGRATIONS.findIndex((m) => m.name === 'ChangeLog1764100000000');
    const before = new TypeOrmDataSource({
      ...dataSourceOptions(database, false, 'operator'),
      migrations: MIGRATIONS.slice(0, changeLogAt),
    });
    await before.initialize();
    await runMigrations(before);
    const e = '00000000-0000-4000-8000-0000000000e1';
    await before.query(`INSERT INTO enterprises (id, name) VALUES ($1, 'E')`, [e]);
    await before.query(
      `INSERT INTO people (id, enterprise_id, last_name) VALUES ('00000000-0000-4000-8000-0000000000c1', $1, 'P')`,
      [e],
    );
    await before.query(
      `INSERT INTO people (id, enterprise_id, last_name) VALUES ('00000000-0000-4000-8000-0000000000c2', NULL, 'Nobody')`,
    );
    await before.query(
      `INSERT INTO organisations (id, enterprise_id, legal_name) VALUES ('00000000-0000-4000-8000-0000000000c3', $1, 'O')`,
      [e],
    );
    await before.query(
      `INSERT INTO applications (id, enterprise_id) VALUES ('00000000-0000-4000-8000-0000000000c4', $1)`,
      [e],
    );
    await before.query(
      `INSERT INTO quotes (id, enterprise_id, application_id) VALUES ('00000000-0000-4000-8000-0000000000c5', $1, '00000000-0000-4000-8000-0000000000c4')`,
      [e],
    );
    await before.query(
      `INSERT INTO leads (id, enterprise_id, title) VALUES ('00000000-0000-4000-8000-0000000000c6', $1, 'L')`,
      [e],
    );
    await before.query(
      `INSERT INTO users (id, name, email, password_hash) VALUES ('00000000-0000-4000-8000-0000000000c7', 'U', 'u@example.com', 'x')`,
    );
    await before.query(
      `INSERT INTO memberships (user_id, enterprise_id) VALUES ('00000000-0000-4000-8000-0000000000c7', $1)`,
      [e],
    );
    await before.destroy();

    const after = await openDataSource(database);
    try {
      expect(await runMigrations(after)).toEqual(MIGRATIONS.slice(changeLogAt).map((m) => m.name));
      const rows = await selectRows<{ record_type: string; record_id: string; action: string }>(
        after,
        `SELECT record_type, record_id, action FROM change_log WHERE enterprise_id = $1 ORDER BY seq`,
        [e],
      );
      expect(rows.map((r) => `${r.record_type}:${r.record_id.slice(-2)}:${r.action}`).sort()).toEqual(
        ['person:c1', 'organisation:c3', 'application:c4', 'quote:c5', 'lead:c6', 'user:c7']
          .map((k) => `${k}:upserted`)
          .sort(),
      );
    } finally {
      await after.destroy();
    }
  });
});

describe('the roles and token scopes migration', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await acquireTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await database.release();
  });

  it('makes every existing membership admin and leaves existing tokens unlimited', async () => {
    const rolesAt = MIGRATIONS.findIndex((m) => m.name === 'RolesAndTokenScopes1765000000000');
    const before = new TypeOrmDataSource({
      ...dataSourceOptions(database, false, 'operator'),
      migrations: MIGRATIONS.slice(0, rolesAt),
    });
    await before.initialize();
    await runMigrations(before);
    const e = '00000000-0000-4000-8000-0000000000f1';
    const u = '00000000-0000-4000-8000-0000000000f2';
    await before.query(`INSERT INTO enterprises (id, name) VALUES ($1, 'E')`, [e]);
    await before.query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, 'U', 'f2@example.com', 'x')`, [
      u,
    ]);
    await before.query(`INSERT INTO memberships (user_id, enterprise_id) VALUES ($1, $2)`, [u, e]);
    await before.query(`INSERT INTO access_tokens (user_id, token_sha256, kind) VALUES ($1, $2, 'integration')`, [
      u,
      '0'.repeat(64),
    ]);
    await before.destroy();

    const after = await openDataSource(database);
    try {
      expect(await runMigrations(after)).toEqual(MIGRATIONS.slice(rolesAt).map((m) => m.name));
      expect(await selectRows(after, `SELECT role FROM memberships WHERE user_id = $1`, [u])).toEqual([
        { role: 'admin' },
      ]);
      expect(
        await selectRows(after, `SELECT abilities, enterprise_ids FROM access_tokens WHERE user_id = $1`, [u]),
      ).toEqual([{ abilities: null, enterprise_ids: null }]);
      await expect(after.query(`UPDATE memberships SET role = 'owner' WHERE user_id = $1`, [u])).rejects.toThrow(
        /memberships_role_check/,
      );
    } finally {
      await after.destroy();
    }
  });
});
