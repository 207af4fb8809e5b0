import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { KeyMismatch, verifyKeyCheck } from '../../src/crypto/key-check.js';
import { ENCRYPTED_COLUMNS, rotateEncryptedValues } from '../../src/crypto/key-rotation.js';
import { generateAppKey, parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { MIGRATIONS } from '../../src/database/migrations.js';
import { selectRows } from '../../src/database/sql.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const KEY_MISMATCH = 'The key does not match the data:';
const keyOf = (text: string): Buffer => parseAppKey(text) ?? Buffer.alloc(0);

/** Issue 13: honest `migrate` output, the lists, the key check and key rotation through the CLI. */
describe('operator commands (issue 13)', () => {
  it('lists the new commands in --help', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const usage of [
      'user:list [--enterprise <value>]',
      'enterprise:list',
      'key:rotate',
      'backup --output <value>',
      'restore --input <value>',
    ]) {
      expect(run.stdout).toContain(usage);
    }
  });

  it('refuses backup and restore with DATABASE_URL, and a backup of a DATA_DIR that holds no database', async () => {
    const url = { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', APP_KEY: TEST_APP_KEY };
    const backup = await runCli(['backup', '--output', join(tmpdir(), 'never.tar.gz')], { env: url });
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('backup is for the embedded database; with DATABASE_URL use');
    const restore = await runCli(['restore', '--input', join(tmpdir(), 'never.tar.gz')], { env: url });
    expect(restore.code).toBe(1);
    const empty = mkdtempSync(join(tmpdir(), 'finance-intake-empty-'));
    const none = await runCli(['backup', '--output', join(empty, 'b.tar.gz')], { env: { DATA_DIR: empty } });
    expect(none).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `There is no embedded database in ${empty} to back up.
`,
    });
  });
  describe('migrate', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await acquireTestDatabase({ migrated: false });
    });
    afterAll(async () => {
      await database.release();
    });

    it('names the migrations it applied on a fresh database, then says there is nothing to migrate', async () => {
      const env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
      const fresh = await runCli(['migrate'], { env });
      expect(fresh).toEqual({ code: 0, stderr: '', stdout: `Applied: ${MIGRATIONS.map((m) => m.name).join(', ')}\n` });
      const again = await runCli(['migrate'], { env });
      expect(again).toEqual({ code: 0, stderr: '', stdout: 'Nothing to migrate.\n' });
    });

    it('does the same on a fresh embedded DATA_DIR', async () => {
      const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'finance-intake-migrate-')) };
      const fresh = await runCli(['migrate'], { env });
      expect(fresh).toEqual({ code: 0, stderr: '', stdout: `Applied: ${MIGRATIONS.map((m) => m.name).join(', ')}\n` });
      expect(await runCli(['migrate'], { env })).toEqual({ code: 0, stderr: '', stdout: 'Nothing to migrate.\n' });
    }, 240_000);
  });

  describe('with data', () => {
    let database: TestDatabase;
    let dataSource: DataSource;
    let env: Record<string, string>;
    const dir = mkdtempSync(join(tmpdir(), 'finance-intake-operator-cli-'));
    const ids = { acme: randomUUID(), other: randomUUID(), ann: randomUUID(), bob: randomUUID() };
    const people = Array.from({ length: 7 }, (_, i) => ({
      id: randomUUID(),
      enterprise_id: ids.acme,
      first_name: `First ${i}`,
      last_name: 'Person',
    }));

    beforeAll(async () => {
      database = await acquireTestDatabase();
      dataSource = await openDataSource(database);
      env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
      const file = join(dir, 'data.json');
      writeFileSync(
        file,
        JSON.stringify({
          enterprises: [
            {
              id: ids.acme,
              name: 'Acme Finance',
              is_active: true,
              signprovider_b_key: 'b-key',
              created_at: '2026-01-01T00:00:00.000Z',
            },
            { id: ids.other, name: 'Other Finance', is_active: false, created_at: '2026-01-02T00:00:00.000Z' },
          ],
          users: [
            {
              id: ids.ann,
              name: 'Ann',
              email: 'ann@example.com',
              is_active: true,
              password: 'ann-password',
              enterprise_ids: [ids.acme, ids.other],
              created_at: '2026-01-01T00:00:00.000Z',
            },
            {
              id: ids.bob,
              name: 'Bob',
              email: 'bob@example.com',
              is_active: false,
              password: 'bob-password',
              enterprise_ids: [ids.other],
              created_at: '2026-01-02T00:00:00.000Z',
            },
          ],
          people,
        }),
      );
      const run = await runCli(['import', file], { env });
      expect(run).toMatchObject({ code: 0, stderr: '' });
    });
    afterAll(async () => {
      await dataSource.destroy();
      await database.release();
    });

    it('enterprise:list shows every enterprise, oldest first', async () => {
      const run = await runCli(['enterprise:list'], { env });
      expect(run).toEqual({
        code: 0,
        stderr: '',
        stdout: [
          'id\tname\tactive\tmembers\tprovider_b_key',
          `${ids.acme}\tAcme Finance\tyes\t1\tset`,
          `${ids.other}\tOther Finance\tno\t2\tunset`,
          '',
        ].join('\n'),
      });
    });

    it("user:list shows every user, or one enterprise's members", async () => {
      const [first, second] = [ids.acme, ids.other].sort();
      const all = await runCli(['user:list'], { env });
      expect(all).toEqual({
        code: 0,
        stderr: '',
        stdout: [
          'id\temail\tname\tactive\tenterprises',
          `${ids.ann}\tann@example.com\tAnn\tyes\t${first},${second}`,
          `${ids.bob}\tbob@example.com\tBob\tno\t${ids.other}`,
          '',
        ].join('\n'),
      });
      const acme = await runCli(['user:list', '--enterprise', ids.acme], { env });
      expect(acme.stdout.split('\n').slice(1, -1)).toEqual([
        `${ids.ann}\tann@example.com\tAnn\tyes\t${first},${second}`,
      ]);
      const unknown = await runCli(['user:list', '--enterprise', randomUUID()], { env });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('No enterprise with the id');
      const malformed = await runCli(['user:list', '--enterprise', 'acme'], { env });
      expect(malformed.code).toBe(1);
      expect(malformed.stderr).toBe('--enterprise must be an enterprise id (a UUID).\n');
    });

    it('refuses a command that writes encrypted values with a key that does not read the data, in one line', async () => {
      const run = await runCli(['enterprise:signing-key', '--enterprise', ids.acme, '--key', 'x'], {
        env: {
          ...env,
          APP_KEY: generateAppKey(),
        },
      });
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(KEY_MISMATCH);
    });

    it('rotates every encrypted value to the new key with progress, after which the old key is not needed', async () => {
      const newKey = generateAppKey();
      const rotated = await runCli(['key:rotate'], {
        env: { ...env, APP_KEY: newKey, APP_PREVIOUS_KEYS: TEST_APP_KEY },
      });
      expect(rotated.code).toBe(0);
      expect(rotated.stdout).toBe(
        'Re-encrypted with the current key: person first names 7, provider B keys 1, key check 1, webhook secrets 0, ' +
          'previous webhook secrets 0.\n' +
          'Every value now reads with APP_KEY alone: APP_PREVIOUS_KEYS can be removed.\n',
      );
      expect(rotated.stderr).toContain('person first names: 7/7\n');

      const cipher = new FieldCipher([keyOf(newKey)]);
      for (const column of ENCRYPTED_COLUMNS) {
        const rows = await selectRows<{ value: string }>(
          dataSource,
          `SELECT ${column.column} AS value FROM ${column.table} WHERE ${column.column} IS NOT NULL`,
        );
        for (const row of rows) expect(cipher.needsRotation(row.value)).toBe(false);
      }
      const names = await selectRows<{ value: string }>(
        dataSource,
        `SELECT first_name_encrypted AS value FROM people WHERE enterprise_id = $1`,
        [ids.acme],
      );
      expect(names.map((r) => cipher.decrypt(r.value)).sort()).toEqual(people.map((p) => p.first_name).sort());

      // The old key alone is refused now; the new key alone works.
      const old = await runCli(['key:rotate'], { env });
      expect(old.code).toBe(1);
      expect(old.stderr).toContain(KEY_MISMATCH);
      const alone = await runCli(['key:rotate'], { env: { ...env, APP_KEY: newKey } });
      expect(alone.stdout).toContain(
        'person first names 0, provider B keys 0, key check 0, webhook secrets 0, previous webhook secrets 0.',
      );
      env = { ...env, APP_KEY: newKey };
    });
  });

  describe('key check and rotation in the library', () => {
    let database: TestDatabase;
    let dataSource: DataSource;
    const oldKey = keyOf(generateAppKey());
    const oldCipher = new FieldCipher([oldKey]);

    beforeAll(async () => {
      database = await acquireTestDatabase();
      dataSource = await openDataSource(database);
      const enterprise = randomUUID();
      await dataSource.query(`INSERT INTO enterprises (id, name) VALUES ($1, 'E')`, [enterprise]);
      for (let i = 0; i < 11; i++) {
        await dataSource.query(`INSERT INTO people (enterprise_id, first_name_encrypted) VALUES ($1, $2)`, [
          enterprise,
          oldCipher.encrypt(`Name ${i}`),
        ]);
      }
    });
    afterAll(async () => {
      await dataSource.destroy();
      await database.release();
    });

    it('on a database written before the key check, refuses a key that does not read the stored values', async () => {
      const wrong = new FieldCipher([keyOf(generateAppKey())]);
      await expect(verifyKeyCheck(dataSource, wrong)).rejects.toBeInstanceOf(KeyMismatch);
      expect(await selectRows(dataSource, `SELECT 1 FROM key_check`)).toEqual([]);
      await verifyKeyCheck(dataSource, oldCipher);
      expect(await selectRows(dataSource, `SELECT 1 FROM key_check`)).toHaveLength(1);
    });

    it('resumes an interrupted rotation where it stopped, batch by batch', async () => {
      const newCipher = new FieldCipher([keyOf(generateAppKey()), oldKey]);
      const stale = async () =>
        (
          await selectRows<{ n: number }>(
            dataSource,
            `SELECT count(*)::int AS n FROM people WHERE split_part(first_name_encrypted, ':', 3) <> $1`,
            [newCipher.currentKeyId],
          )
        )[0]?.n;
      expect(await stale()).toBe(11);
      // Interrupted after the second batch of 4 people.
      let batches = 0;
      await expect(
        rotateEncryptedValues(
          dataSource,
          newCipher,
          (column, done) => {
            if (column.table === 'people' && done > 0 && ++batches === 2) throw new Error('interrupted');
          },
          4,
        ),
      ).rejects.toThrow('interrupted');
      expect(await stale()).toBe(3);
      const progress: string[] = [];
      const done = await rotateEncryptedValues(
        dataSource,
        newCipher,
        (column, count, total) => progress.push(`${column.table} ${count}/${total}`),
        4,
      );
      expect(done.get(ENCRYPTED_COLUMNS[0])).toBe(3);
      expect(progress.filter((p) => p.startsWith('people'))).toEqual(['people 0/3', 'people 3/3']);
      expect(await stale()).toBe(0);
    });
  });
});
