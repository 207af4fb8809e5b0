import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/database/data-source-options.js';
import { runMigrations } from '../../src/database/migration-runner.js';
import { openDataSource } from '../../src/data-source.js';
import { adminUrl, TEMPLATE_DATABASE } from './test-database-names.mjs';

export interface TestDatabase extends DatabaseTarget {
  readonly embedded: boolean;
  /**
   * The variables that point a spawned service or CLI at this database. A test's embedded server
   * is reached by URL, so the process cannot tell it shares one backend session with every
   * other connection: prepared statements are switched off for it (their names would clash).
   */
  readonly env: Record<string, string>;
  release(): Promise<void>;
}

function processEnv(url: string, embedded: boolean): Record<string, string> {
  return { DATABASE_URL: url, ...(embedded ? { DATABASE_PREPARED_STATEMENTS: 'false' } : {}) };
}

function embeddedUrl(): string {
  const urls = (process.env.TEST_EMBEDDED_URLS ?? '').split(',').filter(Boolean);
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  const url = urls[(worker - 1) % Math.max(1, urls.length)];
  if (!url) throw new Error('No test database: set DATABASE_URL or run through jest (global setup).');
  return url;
}

/**
 * What makes a migrated schema the one the migrations built: its relations, columns, indexes,
 * views, constraints, triggers and functions, and the migrations recorded (not grants, storage
 * options or sequence settings, which no test changes). Kept on the schema (its
 * comment) right after migrating, so the next file can tell whether emptying the tables is
 * enough or the schema was changed (a test that reverts a migration, alters a table or adds a
 * trigger) and must be built again.
 */
const SCHEMA_SHAPE = `
  SELECT md5(concat_ws('|',
    (SELECT string_agg(c.relname || ':' || c.relkind::text, ',' ORDER BY c.relname)
       FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace),
    (SELECT string_agg(c.relname || '.' || a.attname || ':' || a.atttypid::text || ':' || a.attnotnull::text
                       || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ',' ORDER BY c.relname, a.attnum)
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
    (SELECT string_agg(pg_get_indexdef(i.indexrelid), ',' ORDER BY pg_get_indexdef(i.indexrelid))
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace),
    (SELECT string_agg(c.relname || ':' || md5(pg_get_viewdef(c.oid)), ',' ORDER BY c.relname)
       FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')),
    (SELECT string_agg(conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conname)
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace),
    (SELECT string_agg(t.tgname || ':' || t.tgenabled::text, ',' ORDER BY t.tgname)
       FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE c.relnamespace = 'public'::regnamespace AND NOT t.tgisinternal),
    (SELECT string_agg(p.proname || ':' || md5(p.prosrc), ',' ORDER BY p.proname, p.oid)
       FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace),
    (SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace
      WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'),
    (SELECT string_agg(name, ',' ORDER BY id) FROM typeorm_migrations)
  )) AS shape`;

async function shapeOf(client: pg.Client): Promise<string | undefined> {
  try {
    const { rows } = await client.query<{ shape: string }>(SCHEMA_SHAPE);
    return rows[0]?.shape;
  } catch (error) {
    // No migrations table: not a migrated schema. Any other error is the query's own and must
    // not pass for one, or every file would build the schema again.
    if ((error as { code?: string }).code === '42P01') return undefined;
    throw error;
  }
}

async function keptShape(client: pg.Client): Promise<string | null> {
  const { rows } = await client.query<{ shape: string | null }>(
    `SELECT obj_description('public'::regnamespace, 'pg_namespace') AS shape`,
  );
  return rows[0]?.shape ?? null;
}

/** Where the rows the migrations wrote (the reserved enterprise, say) are kept, beside the schema. */
const KEPT = 'test_migrations_rows';

/** A copy of every table the migrations left rows in, taken once they have run. */
async function keepMigrationRows(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT format('%I', tablename) AS name FROM pg_tables
      WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'`,
  );
  await client.query(`DROP SCHEMA IF EXISTS ${KEPT} CASCADE`);
  await client.query(`CREATE SCHEMA ${KEPT}`);
  for (const { name } of rows) {
    const { rows: found } = await client.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${name}) AS any`);
    if (found[0]?.any) await client.query(`CREATE TABLE ${KEPT}.${name} AS SELECT * FROM public.${name}`);
  }
}

/**
 * Every table but the migrations' emptied and its sequences restarted, with triggers off (a
 * TRUNCATE moves list versions otherwise), then the rows the migrations wrote put back: the
 * state the migrations leave.
 */
async function emptyTables(client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT format('%I', tablename) AS name FROM pg_tables
      WHERE schemaname = 'public' AND tablename <> 'typeorm_migrations'`,
  );
  const { rows: kept } = await client.query<{ name: string }>(
    `SELECT format('%I', tablename) AS name FROM pg_tables WHERE schemaname = '${KEPT}'`,
  );
  await client.query('BEGIN');
  await client.query(`SET LOCAL session_replication_role = replica`);
  await client.query(`TRUNCATE ${rows.map((row) => row.name).join(', ')} RESTART IDENTITY CASCADE`);
  for (const { name } of kept) await client.query(`INSERT INTO public.${name} SELECT * FROM ${KEPT}.${name}`);
  await client.query('COMMIT');
}

/**
 * This worker's embedded server made ready for one file. Building the schema by its migrations
 * costs PGlite seconds per file; when the schema is still exactly what they built (compared by
 * its shape), emptying its tables gives the same state in a fraction of that.
 */
async function resetEmbedded(url: string, migrate: boolean): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    if (migrate) {
      const kept = await keptShape(client);
      if (kept !== null && kept === (await shapeOf(client))) {
        await emptyTables(client);
        return;
      }
    }
    await client.query('DROP SCHEMA public CASCADE');
    await client.query(`DROP SCHEMA IF EXISTS ${KEPT} CASCADE`);
    await client.query('CREATE SCHEMA public');
    if (!migrate) return;
    const dataSource = await openDataSource({ url, poolMax: 1 });
    await runMigrations(dataSource);
    await dataSource.destroy();
    await keepMigrationRows(client);
    const shape = await shapeOf(client);
    if (shape !== undefined) await client.query(`COMMENT ON SCHEMA public IS '${shape}'`);
  } finally {
    await client.end();
  }
}

/**
 * A database for one test file, nobody else's: a clone of the migrated template on a real
 * server, or this worker's embedded server reset. `migrated: false` gives an empty one.
 */
export async function acquireTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const migrated = options.migrated ?? true;
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const url = embeddedUrl();
    await resetEmbedded(url, migrated);
    return { url, poolMax: 1, embedded: true, env: processEnv(url, true), release: async () => {} };
  }
  const name = `finance_intake_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client(adminUrl(serverUrl));
  await admin.connect();
  try {
    await admin.query(migrated ? `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const bouncerPort = process.env.TEST_PGBOUNCER_PORT;
  if (bouncerPort) {
    // npm run test:pgbouncer: the service reaches this database through PgBouncer in transaction
    // mode, as PgBouncer before 1.21 needs (no named statements); the admin steps stay direct.
    url.hostname = '127.0.0.1';
    url.port = bouncerPort;
  }
  return {
    url: url.toString(),
    poolMax: 5,
    embedded: false,
    env: {
      ...processEnv(url.toString(), false),
      ...(bouncerPort ? { DATABASE_PREPARED_STATEMENTS: 'false' } : {}),
    },
    async release() {
      const client = new pg.Client(adminUrl(serverUrl));
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
