import { afterAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from '../../src/app.factory.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import { initialisedDataDir } from '../helpers/pglite-template.mjs';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { loadConfig } from '../../src/config/app-config.js';

describe('GET /health when the database stops answering', () => {
  let server: EmbeddedPostgres | undefined;
  let app: NestFastifyApplication | undefined;

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await server?.stop();
  });

  it('answers 503 with database down and a message, then 200 is not claimed', async () => {
    // A database of this test's own, so it can be stopped under the running app.
    server = await startEmbeddedPostgres(undefined, await initialisedDataDir());
    const config = loadConfig({
      DATABASE_URL: server.url,
      DATABASE_POOL_MAX: '1',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'silent',
    });
    app = checkResponsesAgainstOpenApi(await createApp(config, { url: server.url, poolMax: 1 }));
    expect((await app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);

    await server.stop();
    const started = Date.now();
    const res = await app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      status: 'unavailable',
      database: 'down',
      message: 'The database is not answering.',
    });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
