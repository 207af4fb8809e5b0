import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { PoolClient } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Row, StageTable } from '../../src/cli/import/import-tables.js';
import { CopySink, InsertSink, Stager, type StageSink } from '../../src/cli/import/staging.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** Rows per batch of a staging table (the stager's own figure). */
const BATCH = 2000;

/** The database's own sink, whose batches wait at a gate until the test opens it. */
class GatedSink implements StageSink {
  /** Batches the stager has started sending (each waits at the gate). */
  started = 0;
  readonly writeText?: (table: StageTable, chunks: readonly Buffer[]) => Promise<void>;
  private open: () => void = () => undefined;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  constructor(private readonly inner: StageSink) {
    const writeText = inner.writeText?.bind(inner);
    if (writeText) {
      this.writeText = async (table, chunks) => {
        this.started++;
        await this.gate;
        await writeText(table, chunks);
      };
    }
  }

  async write(table: StageTable, rows: readonly Row[]): Promise<void> {
    this.started++;
    await this.gate;
    await this.inner.write(table, rows);
  }

  release(): void {
    this.open();
  }
}

const ownerId = randomUUID();

function emailRow(i: number, address = `p${i}@example.com`): Row {
  return {
    owner_section: 'people',
    owner_ord: i,
    ord: 0,
    id: randomUUID(),
    person_id: ownerId,
    organisation_id: null,
    created_at: null,
    updated_at: null,
    address,
    is_primary: 1,
  };
}

describe('staging of an import', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let runner: QueryRunner;
  let sink: StageSink;

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource({ url: database.url, poolMax: 1 });
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });
  beforeEach(async () => {
    runner = dataSource.createQueryRunner();
    const client = (await runner.connect()) as PoolClient;
    sink = database.embedded ? new InsertSink(runner) : new CopySink(client);
    await runner.startTransaction();
  });
  afterEach(async () => {
    await runner.rollbackTransaction();
    await runner.release();
  });

  const stagedEmails = async (): Promise<{ address: string | null; is_primary: number }[]> =>
    selectRows(runner, `SELECT address, is_primary FROM import_emails ORDER BY owner_ord`);

  it('keeps reading while batches wait for the database, up to six batches, then waits', async () => {
    const gated = new GatedSink(sink);
    const stager = new Stager(runner, gated);
    const flushBatch = async (batch: number): Promise<void> => {
      for (let i = 0; i < BATCH; i++) stager.push('emails', emailRow(batch * BATCH + i));
      await stager.flushFull();
    };
    // Six batches are handed over while the database has not taken the first.
    for (let batch = 0; batch < 6; batch++) await flushBatch(batch);
    expect(gated.started).toBeLessThanOrEqual(1);
    const seventh = flushBatch(6).then(() => 'handed over');
    const waited = await Promise.race([
      seventh,
      new Promise<string>((resolve) => setTimeout(() => resolve('waiting'), 200)),
    ]);
    expect(waited).toBe('waiting');
    gated.release();
    expect(await seventh).toBe('handed over');
    await stager.flushAll();
    expect(stager.rowCount('emails')).toBe(7 * BATCH);
    const [count] = await selectRows<{ n: number }>(runner, `SELECT count(*)::int AS n FROM import_emails`);
    expect(count?.n).toBe(7 * BATCH);
  });

  it('stages texts with tabs, line breaks, backslashes, non-ASCII and long values as they were', async () => {
    const stager = new Stager(runner, sink);
    const long = `${'ab\\c\té'.repeat(12_000)}😀`;
    const addresses = ['tab\there', 'line\nbreak\r\nand return', 'back\\slash\\N', 'éàü 😀 日本', long, ''];
    addresses.forEach((address, i) => stager.push('emails', emailRow(i, address)));
    stager.push('emails', { ...emailRow(addresses.length), address: null, is_primary: 0 });
    await stager.flushAll();
    expect(await stagedEmails()).toEqual([
      ...addresses.map((address) => ({ address, is_primary: 1 })),
      { address: null, is_primary: 0 },
    ]);
  });

  it('gives the error of a batch the database refused, once every batch is settled', async () => {
    const stager = new Stager(runner, sink);
    for (let i = 0; i < BATCH; i++) stager.push('emails', emailRow(i));
    stager.push('emails', { ...emailRow(BATCH), id: 'not a uuid' });
    await expect(stager.flushAll()).rejects.toThrow(/uuid/);
    await stager.settle();
    // The connection is idle and answers: the failed batch ended the transaction's work.
    await expect(runner.query('SELECT 1')).rejects.toThrow(/transaction is aborted/);
  });
});
