import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { verifyPassword } from '../../src/auth/password-hasher.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('CLI', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let env: Record<string, string>;
  /** In-process: the command's code on this test's database, as the binary runs it. */
  const cli = (args: string[]) => runCli(args, { env });

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
    env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  it('lists every command with --help', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    for (const name of [
      'migrate',
      'import <file.json>',
      'seed:demo',
      'enterprise:create',
      'enterprise:signing-key',
      'user:create',
      'user:password',
      'member:add',
      'key:generate',
    ]) {
      expect(run.stdout).toContain(name);
    }
  });

  it('rejects an unknown command and an unknown option with exit status 1 (the binary)', async () => {
    const unknown = await runCliProcess(['frobnicate'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Unknown command "frobnicate"');
    const badOption = await runCliProcess(['enterprise:create', '--nmae', 'x'], env);
    expect(badOption.code).toBe(1);
    expect(badOption.stderr).toContain("Unknown option '--nmae'");
  });

  it('migrate reports nothing to do on a migrated database', async () => {
    const run = await cli(['migrate']);
    expect(run).toMatchObject({ code: 0, stdout: 'Nothing to migrate.\n' });
  });

  it('refuses to run against DATABASE_URL without APP_KEY, in one line', async () => {
    const run = await runCli(['migrate'], { env: { DATABASE_URL: database.url } });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('APP_KEY is required when DATABASE_URL is set');
  });

  it('key:generate prints a valid APP_KEY without touching any database', async () => {
    const run = await runCli(['key:generate']);
    expect(run.code).toBe(0);
    expect(parseAppKey(run.stdout.trim())?.length).toBe(32);
  });

  it('creates an enterprise and a member user, and adds memberships', async () => {
    const enterprise = await cli(['enterprise:create', '--name', 'Acme Finance']);
    expect(enterprise.code).toBe(0);
    const enterpriseId = enterprise.stdout.trim();
    expect(enterpriseId).toMatch(UUID);

    const user = await cli([
      'user:create',
      '--email',
      'ann@example.com',
      '--name',
      'Ann',
      '--password',
      'correct horse',
      '--enterprise',
      enterpriseId,
    ]);
    expect(user.code).toBe(0);
    const userId = user.stdout.trim();
    const [row] = await selectRows<{ password_hash: string; is_active: number }>(
      dataSource,
      `SELECT password_hash, is_active FROM users WHERE id = $1`,
      [userId],
    );
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(row?.password_hash ?? '', 'correct horse')).toBe(true);
    expect(row?.is_active).toBe(1);

    const second = await cli(['enterprise:create', '--name', 'Other']);
    const added = await cli(['member:add', '--email', 'ANN@example.com', '--enterprise', second.stdout.trim()]);
    expect(added.code).toBe(0);
    const memberships = await selectRows<{ enterprise_id: string }>(
      dataSource,
      `SELECT enterprise_id FROM memberships WHERE user_id = $1 ORDER BY enterprise_id`,
      [userId],
    );
    expect(memberships.map((m) => m.enterprise_id).sort()).toEqual([enterpriseId, second.stdout.trim()].sort());

    const duplicate = await cli([
      'user:create',
      '--email',
      'Ann@Example.com',
      '--name',
      'Ann 2',
      '--password',
      'another password',
    ]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr.trim()).toBe('A user with the email Ann@Example.com exists already.');
  });

  it('user:password reads stdin, changes the hash and deletes every token of the user', async () => {
    const created = await cli([
      'user:create',
      '--email',
      'bob@example.com',
      '--name',
      'Bob',
      '--password',
      'first password',
    ]);
    const userId = created.stdout.trim();
    await dataSource.query(
      `INSERT INTO access_tokens (user_id, token_sha256) VALUES ($1, repeat('a', 64)), ($1, repeat('b', 64))`,
      [userId],
    );
    // The binary reading the password from its standard input.
    const run = await runCliProcess(['user:password', '--email', 'bob@example.com'], env, 'second password\n');
    expect(run.code).toBe(0);
    const tokens = await selectRows<{ n: string }>(
      dataSource,
      `SELECT count(*) AS n FROM access_tokens WHERE user_id = $1`,
      [userId],
    );
    expect(tokens[0]?.n).toBe('0');
    const [row] = await selectRows<{ password_hash: string }>(
      dataSource,
      `SELECT password_hash FROM users WHERE id = $1`,
      [userId],
    );
    expect(await verifyPassword(row?.password_hash ?? '', 'second password')).toBe(true);
    expect(await verifyPassword(row?.password_hash ?? '', 'first password')).toBe(false);
  });

  it.each([
    [
      ['user:password', '--email', 'nobody@example.com', '--password', 'whatever123'],
      'No user has the email nobody@example.com.',
    ],
    [
      ['member:add', '--email', 'nobody@example.com', '--enterprise', '00000000-0000-4000-8000-000000000000'],
      'No user has the email nobody@example.com.',
    ],
    [
      ['user:create', '--email', 'not-an-email', '--name', 'X', '--password', 'whatever123'],
      'The email must be a valid email address.',
    ],
    [
      ['user:create', '--email', 'short@example.com', '--name', 'X', '--password', 'short'],
      'The password must be at least 8 characters.',
    ],
    [['enterprise:create'], '--name is required.'],
  ])('%j fails with a clear message', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(message);
  });

  it('enterprise:signing-key stores the provider B key encrypted, generating one when absent', async () => {
    const enterpriseId = (await cli(['enterprise:create', '--name', 'Signer'])).stdout.trim();
    const cipher = new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]);
    const stored = async () =>
      (
        await selectRows<{ k: string }>(
          dataSource,
          `SELECT signprovider_b_key_encrypted AS k FROM enterprises WHERE id = $1`,
          [enterpriseId],
        )
      )[0]?.k ?? '';

    const given = await cli([
      'enterprise:signing-key',
      '--enterprise',
      enterpriseId,
      '--key',
      'a-shared-secret-key-123',
    ]);
    expect(given).toMatchObject({ code: 0, stdout: 'Key stored.\n' });
    expect(await stored()).not.toContain('a-shared-secret');
    expect(cipher.decrypt(await stored())).toBe('a-shared-secret-key-123');

    const generated = await cli(['enterprise:signing-key', '--enterprise', enterpriseId]);
    const key = generated.stdout.trim().split(': ').pop() ?? '';
    expect(key.length).toBeGreaterThanOrEqual(40);
    expect(cipher.decrypt(await stored())).toBe(key);

    const unknown = await cli(['enterprise:signing-key', '--enterprise', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('No enterprise has the id 00000000-0000-4000-8000-000000000000.');
  });

  it('import prints every problem with its path, exits 1 and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fi-cli-'));
    const file = join(dir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        enterprises: [{ id: '11111111-1111-4111-8111-111111111111', name: 'Good' }],
        people: [{ id: 'not-a-uuid', enterprise_id: '11111111-1111-4111-8111-111111111111' }],
      }),
    );
    const before = await selectRows<{ n: string }>(dataSource, `SELECT count(*) AS n FROM enterprises`);
    const run = await cli(['import', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('people[0].id:');
    expect(run.stderr).toContain('nothing was written');
    expect(await selectRows(dataSource, `SELECT count(*) AS n FROM enterprises`)).toEqual(before);
  });

  it('import loads a valid file and prints a count per resource', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fi-cli-'));
    const file = join(dir, 'good.json');
    writeFileSync(
      file,
      JSON.stringify({
        enterprises: [{ id: '22222222-2222-4222-8222-222222222222', name: 'Imported' }],
        leads: [
          {
            id: '33333333-3333-4333-8333-333333333333',
            enterprise_id: '22222222-2222-4222-8222-222222222222',
            title: 'Car loan',
            person_name: 'Jane',
          },
        ],
      }),
    );
    const run = await cli(['import', file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('enterprises: 1');
    expect(run.stdout).toContain('leads: 1');
    const rows = await selectRows<{ title: string }>(
      dataSource,
      `SELECT title FROM leads WHERE id = '33333333-3333-4333-8333-333333333333'`,
    );
    expect(rows).toEqual([{ title: 'Car loan' }]);
  });
});
