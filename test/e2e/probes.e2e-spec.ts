import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/app-config.js';
import { openDataSource } from '../../src/data-source.js';
import { DisposablePostgres } from '../helpers/disposable-postgres.js';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

/**
 * Kubernetes-style probes against a database of this file's own, which it stops and starts:
 * liveness never depends on the database; readiness follows it and the migrations.
 */
describe('GET /health/live and /health/ready', () => {
  let postgres: DisposablePostgres;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    postgres = await DisposablePostgres.start();
    const config = loadConfig({
      DATABASE_URL: postgres.url,
      DATABASE_POOL_MAX: '1',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'silent',
      // One request a minute: the probes must not count against any budget.
      RATE_LIMIT_PER_MINUTE: '1',
    });
    app = checkResponsesAgainstOpenApi(await createApp(config, { url: postgres.url, poolMax: 1 }));
  });

  afterAll(async () => {
    await app.close().catch(() => undefined);
    await postgres.close();
  });

  const get = (url: string) => app.inject({ method: 'GET', url });

  it('is live and ready with the database up, outside the rate limit, and /health is unchanged', async () => {
    for (let i = 0; i < 3; i++) {
      const live = await get('/health/live');
      expect(live.statusCode).toBe(200);
      expect(live.body).toBe('{"status":"ok"}');
      expect(live.headers['x-ratelimit-limit']).toBeUndefined();
      const ready = await get('/health/ready');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ok', database: 'up', migrations: 'applied' });
      expect(ready.headers['x-ratelimit-limit']).toBeUndefined();
    }
    const health = await get('/health');
    expect(health.statusCode).toBe(200);
    expect(health.body).toBe('{"status":"ok","database":"up"}');
  });

  it('is not ready while a migration of this release is pending, and ready again once it is applied', async () => {
    const dataSource = await openDataSource({ url: postgres.url, poolMax: 1 });
    try {
      const [latest] = await dataSource.query<{ id: number; timestamp: string; name: string }[]>(
        'SELECT id, timestamp, name FROM typeorm_migrations ORDER BY id DESC LIMIT 1',
      );
      if (!latest) throw new Error('the database is not migrated');
      await dataSource.query('DELETE FROM typeorm_migrations WHERE id = $1', [latest.id]);

      const pending = await get('/health/ready');
      expect(pending.statusCode).toBe(503);
      expect(pending.json()).toEqual({
        status: 'unavailable',
        database: 'up',
        migrations: 'pending',
        message: '1 database migration(s) not applied yet.',
      });
      // Alive all the same: restarting would not apply the migration.
      expect((await get('/health/live')).statusCode).toBe(200);
      // /health only ever looked at the database.
      expect((await get('/health')).statusCode).toBe(200);

      await dataSource.query('INSERT INTO typeorm_migrations (id, timestamp, name) VALUES ($1, $2, $3)', [
        latest.id,
        latest.timestamp,
        latest.name,
      ]);
      expect((await get('/health/ready')).statusCode).toBe(200);
    } finally {
      await dataSource.destroy();
    }
  });

  it('is not ready but still live while the database is stopped, and ready again when it is back', async () => {
    await postgres.stop();
    try {
      const started = Date.now();
      const ready = await get('/health/ready');
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({
        status: 'unavailable',
        database: 'down',
        message: 'The database is not answering.',
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      const live = await get('/health/live');
      expect(live.statusCode).toBe(200);
      expect(live.json()).toEqual({ status: 'ok' });
    } finally {
      await postgres.resume();
    }
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      status = (await get('/health/ready')).statusCode;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
  });

  it('reports Redis down but stays ready while the in-process rate-limit store serves', async () => {
    const withRedis = checkResponsesAgainstOpenApi(
      await createApp(
        loadConfig({
          DATABASE_URL: postgres.url,
          DATABASE_POOL_MAX: '1',
          APP_KEY: TEST_APP_KEY,
          LOG_LEVEL: 'silent',
          // Nothing listens there: the shared store is down from the start.
          REDIS_URL: 'redis://127.0.0.1:1',
        }),
        { url: postgres.url, poolMax: 1 },
      ),
    );
    try {
      const ready = await withRedis.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ status: 'ok', database: 'up', migrations: 'applied', redis: 'down' });
    } finally {
      await withRedis.close();
    }
  });
});
