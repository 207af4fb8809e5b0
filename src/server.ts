import 'reflect-metadata';
import cluster from 'node:cluster';
import { Logger } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { Server } from 'node:http';
import { createApp, metricsOf } from './app.factory.js';
import { runWorkers } from './cluster.js';
import { FieldCipher } from './crypto/field-cipher.js';
import { loadConfig, type AppConfig } from './config/app-config.js';
import { verifyKeyCheck } from './crypto/key-check.js';
import { serveBackups, type ControlServer } from './database/backup-control.js';
import { type DatabaseTarget } from './database/data-source-options.js';
import { dataSourceOptions } from './data-source.js';
import { resolveDatabase } from './database/database-target.js';
import { migrationLocksTelling, pendingMigrations, runMigrations } from './database/migration-runner.js';
import { openDataSource } from './data-source.js';
import { seedDemoIfEmpty } from './demo/seed-demo.js';
import {
  answerPrimaryScrapes,
  clusterSource,
  registrySource,
  startMetricsServer,
} from './observability/metrics-server.js';
import { runExitTasks } from './observability/exit-tasks.js';
import { processLog } from './observability/process-log.js';
import { WebhookDeliveryWorker } from './webhook-endpoints/webhook-delivery.worker.js';

/** With several workers the primary migrates once, before any of them starts. */
async function migrateOnce(config: AppConfig): Promise<void> {
  if (config.webConcurrency <= 1 || !config.migrationsRun || !config.databaseUrl) return;
  const dataSource = await openDataSource({ url: config.databaseUrl, poolMax: 1 });
  try {
    logApplied(await runMigrations(dataSource, MIGRATION_POLICY));
  } finally {
    await dataSource.destroy();
  }
}

/** Migrations at start give way to a serving release's locks, each retry told in the log. */
const MIGRATION_POLICY = migrationLocksTelling((line) => processLog.warn(line));

/** One line naming the migrations a start applied (none: no line, as on every other start). */
function logApplied(applied: readonly string[]): void {
  if (applied.length === 0) return;
  processLog.info({ migrations: applied }, `Applied ${applied.length} migration(s) at start: ${applied.join(', ')}.`);
}

/**
 * With MIGRATIONS_RUN=false the service starts whatever the schema: a migration missing makes
 * the calls that need it fail, and /health/ready says it is not ready. One line names them.
 */
async function warnOfPendingMigrations(dataSource: DataSource): Promise<void> {
  const pending = await pendingMigrations(dataSource);
  if (pending.length === 0) return;
  processLog.warn(
    { pendingMigrations: pending },
    `MIGRATIONS_RUN=false and ${pending.length} migration(s) of this release are not applied: ${pending.join(', ')}. ` +
      'Run `npm run cli -- migrate`; until then /health/ready answers 503 and calls that need them fail.',
  );
}

/**
 * Migrates (when the service does) and verifies that the configured keys read the data, before
 * the application is built: a wrong key stops the start with its one line and nothing else.
 * The connection is a service one (statement timeout), like the one that migrated before.
 */
async function checkKeyBeforeStart(config: AppConfig, database: DatabaseTarget): Promise<void> {
  const dataSource = new DataSource(dataSourceOptions({ url: database.url, poolMax: 1 }, false, 'service'));
  await dataSource.initialize();
  try {
    if (config.migrationsRun) logApplied(await runMigrations(dataSource, MIGRATION_POLICY));
    else await warnOfPendingMigrations(dataSource);
    await verifyKeyCheck(dataSource, new FieldCipher(config.encryptionKeys));
  } finally {
    await dataSource.destroy();
  }
}

/**
 * How long a shutdown waits for requests in flight (the request timeout, plus a margin); past
 * it, the connections still open are closed so the process does stop.
 */
const SHUTDOWN_GRACE_MS = 35_000;

async function serve(config: AppConfig): Promise<void> {
  // The embedded database is locked for this process: another holder makes this refuse.
  const database = await resolveDatabase(config, { role: 'service' });
  const app = await checkKeyBeforeStart(config, database)
    .then(() => createApp(config, database))
    .catch(async (error: unknown) => {
      await database.release();
      throw error;
    });
  const logger = new Logger('Main');
  const dataSource = app.get<DataSource>(getDataSourceToken());
  const cipher = app.get(FieldCipher);

  // One process: its own listener. Workers: the primary serves the sum of all of them.
  const metrics = metricsOf(app);
  let metricsServer: Server | undefined;
  if (metrics && cluster.isWorker) answerPrimaryScrapes(metrics.registry);
  else if (metrics && config.metricsPort !== undefined) {
    metricsServer = await startMetricsServer(registrySource(metrics.registry), config.metricsHost, config.metricsPort);
  }

  let demoBanner: string[] = [];
  let control: ControlServer | undefined;
  try {
    if (database.embedded) demoBanner = (await seedDemoIfEmpty(dataSource, cipher)).banner;
    if (database.dumpDataDir) control = await serveBackups(config.dataDir, database.dumpDataDir);
  } catch (error) {
    await app.close();
    metricsServer?.close();
    await database.release();
    throw error;
  }

  let closing = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight requests, then stopping.`);
    const deadline = setTimeout(() => app.getHttpServer().closeAllConnections(), SHUTDOWN_GRACE_MS);
    deadline.unref();
    // app.close() stops accepting, waits for in-flight requests and closes the pool.
    await app.close();
    metricsServer?.close();
    clearTimeout(deadline);
    await control?.close();
    await database.release();
    await runExitTasks();
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // Every process delivers outbound webhooks; leases in the database share the endpoints out.
  if (config.webhooks.delivery) app.get(WebhookDeliveryWorker).start();
  const address = app.getHttpServer().address();
  database.lock?.update({
    port: typeof address === 'object' && address ? address.port : config.port,
    control: control?.path ?? null,
  });
  if (cluster.isWorker && cluster.worker?.id !== 1) return;
  const url = config.appUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  // The banner, one JSON line per line of text (printed whatever LOG_LEVEL says, as always).
  const lines = [
    `Finance Intake listening on ${url}${config.webConcurrency > 1 ? ` (${config.webConcurrency} workers)` : ''}`,
    `API:    ${url}/api/v1  and  ${url}/api/v2`,
    `Docs:   ${url}/docs  (OpenAPI: ${url}/api/v1/openapi.json, ${url}/api/v2/openapi.json)`,
    `Health: ${url}/health  (probes: ${url}/health/live, ${url}/health/ready)`,
    `Database: ${database.embedded ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)'}`,
    `Rate limit store: ${config.redisUrl ? 'Redis (REDIS_URL)' : 'in-process'}`,
    `Runtime: Node.js ${process.version}`,
    ...demoBanner.map((line) => line.trim()),
  ];
  for (const line of lines) processLog.info(line);
  if (config.webhooks.allowPrivateUrls) {
    processLog.warn(
      { setting: 'WEBHOOK_ALLOW_PRIVATE_URLS' },
      'WEBHOOK_ALLOW_PRIVATE_URLS=true: webhook endpoints may use http: and reach loopback, private and link-local ' +
        'addresses, which lets integrators reach your internal network. For tests and local development only.',
    );
  }
}

/** Reads the configuration and starts the service: one process, or a primary and its workers. */
export async function startService(): Promise<void> {
  const config = loadConfig();
  await runWorkers(config.webConcurrency, {
    prepare: () => migrateOnce(config),
    serve: () => serve(config),
    serveMetrics: async () => {
      if (config.metricsPort === undefined) return;
      await startMetricsServer(clusterSource(), config.metricsHost, config.metricsPort);
    },
  });
}
