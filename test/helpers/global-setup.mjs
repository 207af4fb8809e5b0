// Runs in Jest's parent process, outside its module system, so it loads the compiled code
// (`npm test` builds first). See test-database.ts for how test files use what it prepares.
import pg from 'pg';
import { startEmbeddedPostgres } from '../../dist/src/database/embedded-postgres.js';
import { runMigrations } from '../../dist/src/database/migration-runner.js';
import { openDataSource } from '../../dist/src/data-source.js';
import { CHROMIUM_PATH, chromiumInstalled } from './chromium.mjs';
import { replicaToolsMissing } from './replica-tools.mjs';
import { startPgBouncer } from './pgbouncer.mjs';
import { initialisedDataDir } from './pglite-template.mjs';
import { adminUrl, TEMPLATE_DATABASE } from './test-database-names.mjs';

/**
 * With DATABASE_URL: a migrated template database that each test file clones (CREATE DATABASE
 * ... TEMPLATE), so parallel workers never share rows. Without it: one in-memory PGlite server
 * per worker, which each test file resets and migrates before use.
 */
export default async function globalSetup(globalConfig) {
  process.env.TZ = 'UTC';
  if (!process.env.REDIS_URL) {
    console.log('\nREDIS_URL is not set: the suites in test/redis/ (shared rate limits) are left out.');
  }
  if (!chromiumInstalled()) {
    console.log(
      `\n${CHROMIUM_PATH} is not installed: the suite in test/browser/ (/docs in a browser) is left out. ` +
        'apt-get install chromium to run it.',
    );
  }
  const replicaTools = replicaToolsMissing();
  if (replicaTools && process.env.CI !== 'true') {
    console.log(
      `\nThe suites in test/replicas/ (streaming replica, PgBouncer) are left out: this machine lacks ${replicaTools}.`,
    );
  }
  const url = process.env.DATABASE_URL;
  if (url) {
    const admin = new pg.Client(adminUrl(url));
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
    } finally {
      await admin.end();
    }
    const templateUrl = new URL(url);
    templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
    const dataSource = await openDataSource({ url: templateUrl.toString(), poolMax: 1 });
    await runMigrations(dataSource);
    await dataSource.destroy();
    if (process.env.TEST_THROUGH_PGBOUNCER === 'true') {
      // npm run test:pgbouncer: each test file's database is reached through PgBouncer in
      // transaction mode (any database name is passed on to the server), see test-database.ts.
      const server = new URL(url);
      const bouncer = await startPgBouncer(
        { '*': `host=${server.hostname} port=${server.port || '5432'}` },
        // Probed on the server's own database: a pooled connection to the template would keep
        // CREATE DATABASE ... TEMPLATE from copying it.
        server.pathname.slice(1) || 'postgres',
      );
      globalThis.__PGBOUNCER__ = bouncer;
      process.env.TEST_PGBOUNCER_PORT = String(bouncer.port);
      console.log(
        `\nThe API suites reach their databases through PgBouncer (transaction mode) on port ${bouncer.port}.`,
      );
    }
    return;
  }
  console.log('\nDATABASE_URL is not set: tests run on the embedded PostgreSQL (PGlite).');
  console.log('The suites in test/postgres/ (killed server connections) need a real server and are left out.');
  const servers = [];
  const initialised = await initialisedDataDir();
  for (let i = 0; i < Math.max(1, globalConfig.maxWorkers); i++)
    servers.push(await startEmbeddedPostgres(undefined, initialised));
  globalThis.__EMBEDDED_SERVERS__ = servers;
  process.env.TEST_EMBEDDED_URLS = servers.map((s) => s.url).join(',');
}
