import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { databaseOptions } from '../../src/database/data-source-options.js';
import { migrationLocksTelling, runMigrations } from '../../src/database/migration-runner.js';
import { MIGRATIONS } from '../../src/database/migrations.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** A release's next migrations: first one that needs no lock the service holds... */
class AddProbeTable1999999999998 implements MigrationInterface {
  name = 'AddProbeTable1999999999998';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE upgrade_probe (id int)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE upgrade_probe');
  }
}

/** ...then a column on a table the serving release reads. */
class AddLeadNote1999999999999 implements MigrationInterface {
  name = 'AddLeadNote1999999999999';
  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE leads ADD COLUMN upgrade_note text');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE leads DROP COLUMN upgrade_note');
  }
}

const HELD_MS = 2_000;
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/**
 * An upgrade while the previous release serves: a migration that needs a lock a long reader
 * holds gives way after its lock timeout and tries again, so the statements that come after it
 * on that table are not queued behind it for as long as the reader lasts; it ends applied.
 */
describe('migrations give way to the locks of a serving release', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const clients: pg.Client[] = [];

  const client = async (): Promise<pg.Client> => {
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = new DataSource({
      ...databaseOptions(database, [], false, 'operator'),
      migrations: [...MIGRATIONS, AddProbeTable1999999999998, AddLeadNote1999999999999],
    });
    await dataSource.initialize();
  });
  afterAll(async () => {
    for (const c of clients) await c.end().catch(() => undefined);
    await dataSource?.destroy();
    await database?.release();
  });

  it('waits a bounded time per try, retries, keeps later readers moving, and ends applied', async () => {
    const holder = await client();
    await holder.query('BEGIN');
    await holder.query('SELECT count(*) FROM leads'); // a long read: ACCESS SHARE on leads until COMMIT
    const retries: string[] = [];
    const started = Date.now();
    const migrating = runMigrations(dataSource, {
      ...migrationLocksTelling((line) => retries.push(line)),
      lockTimeoutMs: 200,
    });
    const released = sleep(HELD_MS).then(() => holder.query('COMMIT'));

    // Readers arriving while the migration waits: each queued behind it at most one lock timeout.
    const reader = await client();
    const waits: number[] = [];
    while (Date.now() - started < HELD_MS - 300) {
      const asked = Date.now();
      await reader.query('SELECT count(*) FROM leads');
      waits.push(Date.now() - asked);
      await sleep(50);
    }
    await released;
    // The first pass committed the probe table before it gave way: told with the rest.
    expect(await migrating).toEqual(['AddProbeTable1999999999998', 'AddLeadNote1999999999999']);

    expect(waits.length).toBeGreaterThan(3);
    // Without the bound a reader behind the waiting ALTER waits until the long read ends (~2 s).
    expect(Math.max(...waits)).toBeLessThan(1_000);
    expect(retries.length).toBeGreaterThanOrEqual(2);
    // Told in the project's words: no statement, no table, no parameter.
    expect(retries[0]).toMatch(
      /^A migration waited \d+ ms for a lock the service holds and gave way \(attempt 1 of 12\)/,
    );
    expect(retries.join('\n')).not.toMatch(/leads|ALTER|upgrade_note/);
    const [column] = (
      await reader.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'leads' AND column_name = 'upgrade_note'`,
      )
    ).rows;
    expect(column?.n).toBe(1);
    // The bound was the migration's own: the session gave it back.
    const [setting] = await dataSource.query<{ lock_timeout: string }[]>('SHOW lock_timeout');
    expect(setting?.lock_timeout).toBe('0');
  });

  it('gives up after its attempts with the lock error, leaving nothing half applied', async () => {
    await dataSource.undoLastMigration({ transaction: 'each' });
    const holder = await client();
    await holder.query('BEGIN');
    await holder.query('SELECT count(*) FROM leads');
    // TypeORM's own logger prints nothing: no plain-text line among a service's JSON lines.
    const printed = jest.spyOn(console, 'log');
    try {
      await expect(runMigrations(dataSource, { lockTimeoutMs: 100, attempts: 2 })).rejects.toMatchObject({
        driverError: { code: '55P03' },
      });
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
      await holder.query('COMMIT');
    }
    const rows = await dataSource.query<{ name: string }[]>(
      `SELECT name FROM typeorm_migrations WHERE name = 'AddLeadNote1999999999999'`,
    );
    expect(rows).toEqual([]);
    expect(await runMigrations(dataSource)).toEqual(['AddLeadNote1999999999999']);
  });
});

/** The migrations that run without a transaction of their own, so a run after giving way repeats their steps. */
const STEPWISE = MIGRATIONS.filter((migration) => (new migration() as MigrationInterface).transaction === false);

/**
 * A migration that gave way runs again from its first step. Steps already done must be skipped
 * without taking a table lock: each lock taken again behind the serving release's readers and
 * writers is one more chance to give way again, and an upgrade under load ran out of attempts.
 */
describe('a stepwise migration run again after giving way', () => {
  let database: TestDatabase;
  let holder: pg.Client;

  beforeAll(async () => {
    database = await acquireTestDatabase({ migrated: false });
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await database?.release();
  });

  it('lists the migrations written to be run again', () => {
    expect(STEPWISE.map((migration) => migration.name)).toEqual([
      'TenancyInTheKeys1765200000000',
      'PrimaryKeysWithEnterprise1765300000000',
      'EveryRecordHasAnEnterprise1765400000000',
    ]);
  });

  it.each(STEPWISE.map((migration) => [migration.name, migration] as const))(
    '%s, once applied, runs again past a serving release that reads and writes every table',
    async (_name, migration) => {
      const upTo = MIGRATIONS.slice(0, MIGRATIONS.indexOf(migration) + 1);
      const dataSource = new DataSource({ ...databaseOptions(database, [], false, 'operator'), migrations: upTo });
      await dataSource.initialize();
      const runner = dataSource.createQueryRunner();
      try {
        await runMigrations(dataSource);
        // A reader and a writer of every tenant table mid-transaction: ACCESS SHARE and ROW EXCLUSIVE held.
        const { rows: tables } = await holder.query<{ table: string }>(
          `SELECT table_name AS table FROM information_schema.columns
            WHERE table_schema = 'public' AND column_name = 'enterprise_id' ORDER BY table_name`,
        );
        expect(tables.length).toBeGreaterThan(10);
        await holder.query('BEGIN');
        for (const { table } of tables) {
          await holder.query(`SELECT count(*) FROM ${table}`);
          await holder.query(`UPDATE ${table} SET enterprise_id = enterprise_id WHERE false`);
        }
        await runner.query('SET lock_timeout = 200');
        await expect(new migration().up(runner)).resolves.toBeUndefined();
      } finally {
        await holder.query('ROLLBACK');
        await runner.release();
        await dataSource.destroy();
      }
    },
  );
});

/**
 * A stepwise migration that gave way between SET NOT NULL and dropping the CHECK that spared its
 * scan finds the column NOT NULL on its next try: it must still drop the CHECK, or the schema keeps
 * a constraint a fresh install does not have (and the way down, which writes NULLs, fails on it).
 */
describe('a stepwise migration that gave way after SET NOT NULL', () => {
  const cases = [
    ['TenancyInTheKeys1765200000000', 'webhook_deliveries'],
    ['EveryRecordHasAnEnterprise1765400000000', 'people'],
  ] as const;

  it.each(cases)('%s drops the CHECK it left on %s', async (name, table) => {
    const migration = MIGRATIONS.find((candidate) => candidate.name === name);
    if (migration === undefined) throw new Error(`${name} is not listed`);
    const database = await acquireTestDatabase({ migrated: false });
    const dataSource = new DataSource({
      ...databaseOptions(database, [], false, 'operator'),
      migrations: MIGRATIONS.slice(0, MIGRATIONS.indexOf(migration) + 1),
    });
    const runner = dataSource.createQueryRunner();
    try {
      await dataSource.initialize();
      await runMigrations(dataSource);
      const check = `${table}_enterprise_id_not_null`;
      await runner.query(`ALTER TABLE ${table} ADD CONSTRAINT ${check} CHECK (enterprise_id IS NOT NULL)`);
      await new migration().up(runner);
      const left = (await runner.query(`SELECT conname FROM pg_constraint WHERE conname = $1`, [check])) as unknown[];
      expect(left).toEqual([]);
    } finally {
      await runner.release();
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.release();
    }
  });
});

/**
 * A migration that alters several tables the service uses takes all its locks first, in the
 * order requests take them. Taken one statement at a time, it held one table while waiting for
 * the next; a request holding that next table and then reading the held one closed a cycle, and
 * the migration gave way on every try (an upgrade under load gave way ten times in one migration).
 */
describe('migrations take their locks in the order requests do', () => {
  const cases = [
    ['TenantsNeverWait1764400000000', 'people', 'change_log'],
    ['RolesAndTokenScopes1765000000000', 'access_tokens', 'memberships'],
  ] as const;

  it.each(cases)(
    '%s waits for a request reading %s and then %s, and is applied once it ends',
    async (name, first, second) => {
      const index = MIGRATIONS.findIndex((migration) => migration.name === name);
      const database = await acquireTestDatabase({ migrated: false });
      const request = new pg.Client({ connectionString: database.url });
      const before = new DataSource({
        ...databaseOptions(database, [], false, 'operator'),
        migrations: MIGRATIONS.slice(0, index),
      });
      const upgrade = new DataSource({
        ...databaseOptions(database, [], false, 'operator'),
        migrations: MIGRATIONS.slice(0, index + 1),
      });
      try {
        await before.initialize();
        await runMigrations(before);
        await upgrade.initialize();
        await request.connect();
        await request.query(`SET statement_timeout = 10000`);
        await request.query('BEGIN');
        await request.query(`SELECT count(*) FROM ${first}`);
        // One try, with a bound above PostgreSQL's 1-s deadlock check: a cycle fails it.
        const migrating = runMigrations(upgrade, { lockTimeoutMs: 3_000, attempts: 1 }).then(
          (applied) => ({ applied }),
          (error: unknown) => ({ error: String(error) }),
        );
        const deadline = Date.now() + 10_000;
        while (Date.now() < deadline) {
          const { rows } = await request.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
              WHERE d.datname = current_database() AND NOT l.granted`,
          );
          if ((rows[0]?.n ?? 0) > 0) break;
          await sleep(20);
        }
        await request.query(`SELECT count(*) FROM ${second}`);
        await request.query('COMMIT');
        expect(await migrating).toEqual({ applied: [name] });
      } finally {
        await request.end().catch(() => undefined);
        if (upgrade.isInitialized) await upgrade.destroy();
        if (before.isInitialized) await before.destroy();
        await database.release();
      }
    },
  );
});
