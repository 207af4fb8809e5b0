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

async function resetEmbedded(url: string, migrate: boolean): Promise<void> {
  const client = new pg.Client(url);
  await client.connect();
  try {
    await client.query('DROP SCHEMA public CASCADE');
    await client.query('CREATE SCHEMA public');
  } finally {
    await client.end();
  }
  if (migrate) {
    const dataSource = await openDataSource({ url, poolMax: 1 });
    await runMigrations(dataSource);
    await dataSource.destroy();
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
