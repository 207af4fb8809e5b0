import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EXPECTED_MIGRATIONS } from '../../src/database/migration-runner.js';
import { freePort } from '../helpers/free-port.mjs';
import { ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

describe('MIGRATIONS_RUN=false on a database missing migrations', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await acquireTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    await database.release();
  });

  it('warns at start naming every pending migration, and is not ready', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(serviceEnv(database, port, { MIGRATIONS_RUN: 'false' }));
    try {
      await service.waitFor(`${base}/health/live`);
      const warning = service.jsonLines().find((line) => line.level === 40 && Array.isArray(line.pendingMigrations)) as
        { msg: string; pendingMigrations: string[] } | undefined;
      expect(warning?.pendingMigrations).toEqual(EXPECTED_MIGRATIONS);
      for (const name of EXPECTED_MIGRATIONS) expect(warning?.msg).toContain(name);
      expect(warning?.msg).toContain('npm run cli -- migrate');
      const ready = await fetch(`${base}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ migrations: 'pending' });
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
