import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { checkResponsesAgainstOpenApi } from './openapi-contract.js';
import { acquireTestDatabase, type TestDatabase } from './test-database.js';

export const TEST_APP_KEY = `base64:${Buffer.alloc(32, 7).toString('base64')}`;

export interface TestApp {
  readonly app: NestFastifyApplication;
  readonly dataSource: DataSource;
  readonly config: AppConfig;
  readonly cipher: FieldCipher;
  readonly database: TestDatabase;
  close(): Promise<void>;
}

/** The configuration a test app runs with: the test database plus the given variables. */
export function testConfig(database: TestDatabase, env: Record<string, string> = {}): AppConfig {
  return loadConfig({
    DATABASE_URL: database.url,
    DATABASE_POOL_MAX: String(database.poolMax),
    // Off on the embedded server and through PgBouncer (npm run test:pgbouncer).
    ...(database.env.DATABASE_PREPARED_STATEMENTS
      ? { DATABASE_PREPARED_STATEMENTS: database.env.DATABASE_PREPARED_STATEMENTS }
      : {}),
    APP_KEY: TEST_APP_KEY,
    LOG_LEVEL: 'silent',
    // Suites make far more than 60 calls a minute; the rate-limit suites set their own limit.
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  });
}

/**
 * The real Nest application on Fastify against a database of this test file's own. Every
 * response its `inject` gives is checked against the OpenAPI document of its version.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await acquireTestDatabase();
  const config = testConfig(database, env);
  // The pool size a suite asks for (DATABASE_POOL_MAX) is the one its application opens.
  const app = checkResponsesAgainstOpenApi(await createApp(config, { ...database, poolMax: config.databasePoolMax }));
  return {
    app,
    dataSource: app.get<DataSource>(getDataSourceToken()),
    config,
    cipher: app.get(FieldCipher),
    database,
    async close() {
      await app.close();
      await database.release();
    },
  };
}
