import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { openDataSource } from '../../src/data-source.js';
import { selectRows, type SqlExecutor } from '../../src/database/sql.js';
import { countForEnterprise } from '../../src/database/tenant-page.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The capture triggers at the database level, for every kind of statement: what lands in the
 * change log and how each type's version (a list's ETag) moves. The row-count trigger moves the
 * version of a table's own inserts and deletes; the capture moves it for everything else.
 */
describe('change capture in the database', () => {
  let database: TestDatabase;
  let db: DataSource;
  const enterprise = randomUUID();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    db = await openDataSource(database);
    await db.query(`INSERT INTO enterprises (id, name) VALUES ($1, 'Capture')`, [enterprise]);
  });
  afterAll(async () => {
    await db.destroy();
    await database.release();
  });

  /** The list's version as a list read takes it: the folded base and the deltas since. */
  async function version(table: string): Promise<number> {
    return Number((await countForEnterprise(db, table, enterprise)).version);
  }

  async function entries(type: string): Promise<Record<string, string>> {
    const rows = await selectRows<{ record_id: string; action: string }>(
      db,
      `SELECT record_id, action FROM change_log WHERE enterprise_id = $1 AND record_type = $2`,
      [enterprise, type],
    );
    return Object.fromEntries(rows.map((r) => [r.record_id, r.action]));
  }

  it('an insert of several rows writes one entry per row and moves the version once', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    const before = await version('leads');
    await db.query(`INSERT INTO leads (id, enterprise_id, title) VALUES ($1, $3, 'A'), ($2, $3, 'B')`, [
      a,
      b,
      enterprise,
    ]);
    expect(await version('leads')).toBe(before + 1);
    expect(await entries('lead')).toMatchObject({ [a]: 'upserted', [b]: 'upserted' });
  });

  it('an update moves the version once and re-positions the entry; one that changes nothing leaves both', async () => {
    const id = randomUUID();
    await db.query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Before')`, [id, enterprise]);
    const seqOf = async (): Promise<string | undefined> =>
      (await selectRows<{ seq: string }>(db, `SELECT seq::text AS seq FROM change_log WHERE record_id = $1`, [id]))[0]
        ?.seq;
    const [firstVersion, firstSeq] = [await version('people'), await seqOf()];

    await db.query(`UPDATE people SET last_name = 'After' WHERE id = $1`, [id]);
    const [secondVersion, secondSeq] = [await version('people'), await seqOf()];
    expect(secondVersion).toBe(firstVersion + 1);
    expect(BigInt(secondSeq ?? 0)).toBeGreaterThan(BigInt(firstSeq ?? 0));

    await db.query(`UPDATE people SET last_name = 'After' WHERE id = $1`, [id]);
    expect(await version('people')).toBe(secondVersion);
    expect(await seqOf()).toBe(secondSeq);
  });

  it('a delete marks the record removed and moves the version', async () => {
    const id = randomUUID();
    await db.query(`INSERT INTO organisations (id, enterprise_id, legal_name) VALUES ($1, $2, 'Gone')`, [
      id,
      enterprise,
    ]);
    const before = await version('organisations');
    await db.query(`DELETE FROM organisations WHERE id = $1`, [id]);
    expect(await version('organisations')).toBe(before + 1);
    expect((await entries('organisation'))[id]).toBe('removed');
  });

  it('two nested rows of one person in one statement give one entry and one version move', async () => {
    const person = randomUUID();
    await db.query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Caller')`, [person, enterprise]);
    const before = await version('people');
    await db.query(
      `INSERT INTO phone_numbers (person_id, type, number) VALUES ($1, 'mobile', '0400000001'), ($1, 'work', '0400000002')`,
      [person],
    );
    expect(await version('people')).toBe(before + 1);
    expect((await entries('person'))[person]).toBe('upserted');
  });

  it("a transaction writes a record's entry once per action: its nested rows leave the entry where it was put", async () => {
    const [person, removed] = [randomUUID(), randomUUID()];
    const logRow = async (q: SqlExecutor, id: string) =>
      (
        await selectRows<{ seq: string; ctid: string; action: string }>(
          q,
          `SELECT seq::text AS seq, ctid::text AS ctid, action FROM change_log WHERE record_id = $1`,
          [id],
        )
      )[0];
    const before = await version('people');
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Once')`, [
        person,
        enterprise,
      ]);
      const written = await logRow(runner, person);
      await runner.query(`INSERT INTO phone_numbers (person_id, type, number) VALUES ($1, 'mobile', '0400000003')`, [
        person,
      ]);
      await runner.query(`INSERT INTO emails (person_id, address) VALUES ($1, 'once@example.com')`, [person]);
      await runner.query(`UPDATE people SET last_name = 'Once more' WHERE id = $1`, [person]);
      // The same position and the same row version: nothing rewrote it.
      expect(await logRow(runner, person)).toEqual(written);

      // Another action in the same transaction still moves it.
      await runner.query(`INSERT INTO people (id, enterprise_id, last_name) VALUES ($1, $2, 'Brief')`, [
        removed,
        enterprise,
      ]);
      await runner.query(`INSERT INTO phone_numbers (person_id, type, number) VALUES ($1, 'mobile', '0400000004')`, [
        removed,
      ]);
      await runner.query(`DELETE FROM people WHERE id = $1`, [removed]);
      expect((await logRow(runner, removed))?.action).toBe('removed');
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await version('people')).toBeGreaterThan(before);
    expect(await entries('person')).toMatchObject({ [person]: 'upserted', [removed]: 'removed' });

    // A later transaction moves the entry as before.
    const committed = await logRow(db, person);
    await db.query(`INSERT INTO phone_numbers (person_id, type, number) VALUES ($1, 'work', '0400000005')`, [person]);
    expect(BigInt((await logRow(db, person))?.seq ?? 0)).toBeGreaterThan(BigInt(committed?.seq ?? 0));
  });

  it("an application's quotes change with it, and a membership's removal removes the user", async () => {
    const [application, quote, user] = [randomUUID(), randomUUID(), randomUUID()];
    await db.query(`INSERT INTO applications (id, enterprise_id) VALUES ($1, $2)`, [application, enterprise]);
    await db.query(`INSERT INTO quotes (id, enterprise_id, application_id) VALUES ($1, $2, $3)`, [
      quote,
      enterprise,
      application,
    ]);
    const quotesBefore = await version('quotes');
    await db.query(`UPDATE applications SET updated_at = updated_at + interval '1 second' WHERE id = $1`, [
      application,
    ]);
    expect(await version('quotes')).toBe(quotesBefore + 1);

    await db.query(`INSERT INTO users (id, name, email, password_hash) VALUES ($1, 'U', $2, 'x')`, [
      user,
      `${user}@example.com`,
    ]);
    await db.query(`INSERT INTO memberships (user_id, enterprise_id) VALUES ($1, $2)`, [user, enterprise]);
    expect((await entries('user'))[user]).toBe('upserted');
    const usersBefore = await version('users');
    await db.query(`DELETE FROM memberships WHERE user_id = $1`, [user]);
    expect(await version('users')).toBe(usersBefore + 1);
    expect((await entries('user'))[user]).toBe('removed');
  });

  it('the rows of an enterprise being deleted leave no entry behind', async () => {
    const gone = randomUUID();
    await db.query(`INSERT INTO enterprises (id, name) VALUES ($1, 'Gone')`, [gone]);
    await db.query(`INSERT INTO leads (enterprise_id, title) VALUES ($1, 'L')`, [gone]);
    await db.query(`DELETE FROM enterprises WHERE id = $1`, [gone]);
    const left = await selectRows(db, `SELECT 1 FROM change_log WHERE enterprise_id = $1`, [gone]);
    expect(left).toEqual([]);
  });
});
