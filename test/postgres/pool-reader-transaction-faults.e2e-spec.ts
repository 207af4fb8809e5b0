import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PoolReader } from '../../src/database/pool-reader.js';
import { selectRows } from '../../src/database/sql.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * PoolReader.transaction when its connection fails under it: a real server (the embedded one has
 * a single backend, which no other connection can end).
 */
describe('PoolReader transactions on a failed connection', () => {
  let t: TestApp;
  let reader: PoolReader;
  beforeAll(async () => {
    t = await createTestApp({ DATABASE_POOL_MAX: '2' });
    reader = t.app.get(PoolReader);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a server connection ended while the transaction holds it fails the transaction, not the process', async () => {
    const ended = reader.transaction('REPEATABLE READ', async (db) => {
      const [own] = await selectRows<{ pid: number }>(db, 'SELECT pg_backend_pid() AS pid');
      await reader.query('SELECT pg_terminate_backend($1)', [own?.pid]);
      // The server's notice of the end reaches the idle connection before the next statement.
      await new Promise((resolve) => setTimeout(resolve, 200));
      return db.query('SELECT 1');
    });
    await expect(ended).rejects.toThrow();
    // The pool dropped the connection and serves the next statements on sound ones.
    for (let i = 0; i < 3; i++) {
      const [row] = await selectRows<{ one: number }>(reader, 'SELECT 1 AS one');
      expect(row?.one).toBe(1);
    }
  });
});
