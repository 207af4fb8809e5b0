import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres.js';
import { initialisedDataDir } from '../helpers/pglite-template.mjs';

/**
 * Issue 13: the copy `backup` takes of a running embedded database is consistent: committed
 * rows are in it, rows of a transaction still open are not, and the running database loses
 * nothing (the open transaction commits afterwards as if nothing happened).
 */
describe('embedded database copy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'finance-intake-dump-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const ids = async (client: pg.Client): Promise<number[]> =>
    (await client.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows.map((r) => r.id);

  it('holds what was committed, not what a transaction open at that moment wrote', async () => {
    // Loaded from what initdb leaves rather than running it again: the copy is what is tested.
    const running = await startEmbeddedPostgres(join(dir, 'running'), await initialisedDataDir());
    const client = new pg.Client(running.url);
    await client.connect();
    let copy: Blob;
    try {
      await client.query('CREATE TABLE t (id int PRIMARY KEY)');
      await client.query('INSERT INTO t SELECT generate_series(1, 1000)');
      await client.query('BEGIN');
      await client.query('INSERT INTO t VALUES (1001)');
      copy = await running.dumpDataDir();
      await client.query('INSERT INTO t VALUES (1002)');
      await client.query('COMMIT');
      expect((await ids(client)).slice(-3)).toEqual([1000, 1001, 1002]);
    } finally {
      await client.end();
      await running.stop();
    }

    const restored = await startEmbeddedPostgres(join(dir, 'restored'), copy);
    const reader = new pg.Client(restored.url);
    await reader.connect();
    try {
      const rows = await ids(reader);
      expect(rows).toHaveLength(1000);
      expect(rows.at(-1)).toBe(1000);
    } finally {
      await reader.end();
      await restored.stop();
    }
  }, 240_000);
});
