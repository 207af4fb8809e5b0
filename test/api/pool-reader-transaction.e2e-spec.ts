import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PoolReader } from '../../src/database/pool-reader.js';
import { selectRows } from '../../src/database/sql.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/**
 * PoolReader.transaction, the snapshot a change feed page and a webhook round read in: one pool
 * connection (the pool has one here), the isolation asked for, rolled back when the work throws
 * and the connection handed back usable, and no statement run on it once the transaction is over.
 */
describe('PoolReader transactions', () => {
  let t: TestApp;
  let reader: PoolReader;
  beforeAll(async () => {
    t = await createTestApp({ DATABASE_POOL_MAX: '1' });
    reader = t.app.get(PoolReader);
  });
  afterAll(async () => {
    await t.close();
  });

  it('runs the work in one repeatable-read transaction and commits it', async () => {
    const seen = await reader.transaction('REPEATABLE READ', async (db) => {
      const [isolation] = await selectRows<{ transaction_isolation: string }>(db, 'SHOW transaction_isolation');
      await db.query('CREATE TEMP TABLE pool_reader_committed (n int)');
      const [backend] = await selectRows<{ pid: number }>(db, 'SELECT pg_backend_pid() AS pid');
      return { isolation: isolation?.transaction_isolation, pid: backend?.pid };
    });
    expect(seen.isolation).toBe('repeatable read');
    const [after] = await selectRows<{ pid: number; kept: string | null }>(
      reader,
      `SELECT pg_backend_pid() AS pid, to_regclass('pg_temp.pool_reader_committed')::text AS kept`,
    );
    if (!t.database.embedded) expect(after?.pid).toBe(seen.pid);
    expect(after?.kept).not.toBeNull();
  });

  it('rolls back when the work throws, and the connection serves the next statement', async () => {
    await expect(
      reader.transaction('REPEATABLE READ', async (db) => {
        await db.query('CREATE TEMP TABLE pool_reader_rolled_back (n int)');
        throw new Error('the work failed');
      }),
    ).rejects.toThrow('the work failed');
    const [after] = await selectRows<{ kept: string | null }>(
      reader,
      `SELECT to_regclass('pg_temp.pool_reader_rolled_back')::text AS kept`,
    );
    expect(after?.kept).toBeNull();
  });

  it('rolls back a transaction whose statement failed', async () => {
    await expect(reader.transaction('REPEATABLE READ', (db) => db.query('SELECT 1/0'))).rejects.toThrow(
      /division by zero/,
    );
    const [after] = await selectRows<{ one: number }>(reader, 'SELECT 1 AS one');
    expect(after?.one).toBe(1);
  });

  it('a statement asked for once the transaction failed is refused, not run on the returned connection', async () => {
    let late: Promise<unknown> | undefined;
    await expect(
      reader.transaction('REPEATABLE READ', async (db) => {
        const failing = db.query('SELECT 1/0');
        // Asked for after the failure, as a batch queued behind it would be.
        late = failing.catch(() => new Promise((resolve) => setTimeout(resolve, 0))).then(() => db.query('SELECT 1'));
        late.catch(() => undefined);
        await failing;
      }),
    ).rejects.toThrow(/division by zero/);
    await expect(late).rejects.toThrow('The transaction is over');
  });
});
