import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { DEMO_CREDENTIALS } from '../../src/demo/demo-document.js';
import { seedDemoIfEmpty } from '../../src/demo/seed-demo.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const [DEMO, SECOND] = DEMO_CREDENTIALS;

describe('the demo banner prints a demo password only while it logs in', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  it('prints both passwords after seeding, then leaves out the one user:password changed', async () => {
    const first = await seedDemoIfEmpty(dataSource, cipher);
    expect(first.seeded).toBe(true);
    expect(first.banner.join('\n')).toContain(`${DEMO?.email} / ${DEMO?.password}`);
    expect((await seedDemoIfEmpty(dataSource, cipher)).banner).toEqual(first.banner);

    const env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
    const changed = await runCli(['user:password', '--email', DEMO?.email ?? ''], {
      env,
      stdin: 'a-new-long-password\n',
    });
    expect(changed.code).toBe(0);

    const banner = (await seedDemoIfEmpty(dataSource, cipher)).banner.join('\n');
    expect(banner).not.toContain(DEMO?.password);
    expect(banner).toContain(`Demo login: ${DEMO?.email} (its demo password no longer works`);
    // The other demo login still works with its password, so it is still printed.
    expect(banner).toContain(`${SECOND?.email} / ${SECOND?.password}`);
  });
});
