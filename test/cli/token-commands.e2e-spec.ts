import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import { parseToken } from '../../src/auth/access-token.js';
import { findTokenUser } from '../../src/auth/token-lookup.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, tenantDocument } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|[A-Za-z0-9]{48}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('CLI: token:create, token:list, token:revoke, user:deactivate, user:activate', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let env: Record<string, string>;
  const { doc, tenant } = tenantDocument();
  const email = tenant.user.email;
  const cli = (args: string[]) => runCli(args, { env });
  const works = async (token: string) => (await findTokenUser(dataSource, token)) !== undefined;

  beforeAll(async () => {
    database = await acquireTestDatabase();
    dataSource = await openDataSource(database);
    await importFixture({ dataSource, cipher: new FieldCipher([parseAppKey(TEST_APP_KEY) ?? Buffer.alloc(0)]) }, doc);
    env = { DATABASE_URL: database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.release();
  });

  async function createToken(args: string[]): Promise<string> {
    const run = await cli(['token:create', '--email', email, ...args]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const token = run.stdout.trim();
    expect(token).toMatch(TOKEN);
    return token;
  }

  it('lists the new commands in --help', async () => {
    const run = await cli(['--help']);
    for (const usage of [
      'token:create --email <value> --name <value> [--expires-in-days <value>]',
      'token:list --email <value>',
      'token:revoke [--id <value>] [--email <value>] [--all]',
      'user:deactivate --email <value>',
      'user:activate --email <value>',
    ]) {
      expect(run.stdout).toContain(usage);
    }
  });

  it('token:create prints a working integration token once; token:list shows it without its secret', async () => {
    const token = await createToken(['--name', 'CRM sync', '--expires-in-days', '30']);
    expect(await works(token)).toBe(true);
    const id = parseToken(token)?.id ?? '';
    const [row] = await selectRows<{ kind: string; name: string; days: number }>(
      dataSource,
      `SELECT kind, name, round(extract(epoch FROM expires_at - created_at) / 86400)::int AS days
         FROM access_tokens WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ kind: 'integration', name: 'CRM sync', days: 30 });

    const list = await cli(['token:list', '--email', email.toUpperCase()]);
    expect(list.code).toBe(0);
    const [header, ...lines] = list.stdout.trim().split('\n');
    expect(header).toBe('id\tname\tcreated\tlast used\texpires');
    const line = lines.find((l) => l.startsWith(id))?.split('\t');
    expect(line?.[1]).toBe('CRM sync');
    expect(line?.[2]).toMatch(ISO);
    expect(line?.[3]).toBe('never');
    expect(line?.[4]).toMatch(ISO);
    expect(list.stdout).not.toContain(token.split('|')[1] ?? token);
  });

  it('token:list shows a login token, its last use and the expiry TOKEN_LIFETIME_MINUTES gives it', async () => {
    const id = randomUUID();
    await dataSource.query(
      `INSERT INTO access_tokens (id, user_id, token_sha256, last_used_at, created_at)
       VALUES ($1, $2, repeat('c', 64), '2026-01-01T10:00:00Z', '2026-01-01T09:00:00Z')`,
      [id, tenant.user.id],
    );
    const forever = await cli(['token:list', '--email', email]);
    expect(forever.stdout).toContain(`${id}\t(login)\t2026-01-01T09:00:00.000Z\t2026-01-01T10:00:00.000Z\tnever`);
    env.TOKEN_LIFETIME_MINUTES = '90';
    try {
      const limited = await cli(['token:list', '--email', email]);
      expect(limited.stdout).toContain(
        `${id}\t(login)\t2026-01-01T09:00:00.000Z\t2026-01-01T10:00:00.000Z\t2026-01-01T10:30:00.000Z (expired)`,
      );
    } finally {
      delete env.TOKEN_LIFETIME_MINUTES;
    }
  });

  it('token:revoke --id revokes one token; --email --all revokes every token of the user', async () => {
    const one = await createToken(['--name', 'One']);
    const two = await createToken(['--name', 'Two']);
    const byId = await cli(['token:revoke', '--id', parseToken(one)?.id ?? '']);
    expect(byId.stdout.trim()).toBe('Token revoked.');
    expect(await works(one)).toBe(false);
    expect(await works(two)).toBe(true);

    const all = await cli(['token:revoke', '--email', email, '--all']);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^\d+ tokens? revoked\.\n$/);
    expect(await works(two)).toBe(false);
    const [left] = await selectRows<{ n: number }>(
      dataSource,
      `SELECT count(*)::int AS n FROM access_tokens WHERE user_id = $1`,
      [tenant.user.id],
    );
    expect(left?.n).toBe(0);
  });

  it.each([
    [['token:revoke', '--email', 'x@example.com'], 'Give either --id <token id>, or --email <email> --all.'],
    [['token:revoke'], 'Give either --id <token id>, or --email <email> --all.'],
    [['token:revoke', '--id', randomUUID(), '--all'], 'Give either --id <token id>, or --email <email> --all.'],
    [['token:revoke', '--id', 'not-a-uuid'], 'No token has the id not-a-uuid.'],
    [['token:create', '--email', 'nobody@example.com', '--name', 'x'], 'No user has the email nobody@example.com.'],
    [['token:create', '--email', 'a@example.com', '--name', 'x', '--expires-in-days', 'soon'], 'whole number'],
    [['token:create', '--email', 'a@example.com', '--name', 'x', '--expires-in-days', '0'], 'from 1 to 3650'],
    [['token:list', '--email', 'nobody@example.com'], 'No user has the email nobody@example.com.'],
    [['user:deactivate', '--email', 'nobody@example.com'], 'No user has the email nobody@example.com.'],
  ])('%j fails with exit status 1 and says why', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
  });

  it('user:deactivate locks the user out (tokens refused) and user:activate lets the same tokens back in', async () => {
    const token = await createToken(['--name', 'Before lock']);
    const off = await cli(['user:deactivate', '--email', email]);
    expect(off.code).toBe(0);
    expect(off.stdout.trim()).toBe('User deactivated; their tokens answer 401 until user:activate.');
    expect(await works(token)).toBe(false);
    const refused = await cli(['token:create', '--email', email, '--name', 'While locked']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is inactive: run user:activate first.');

    const on = await cli(['user:activate', '--email', email]);
    expect(on.stdout.trim()).toBe('User activated.');
    expect(await works(token)).toBe(true);
  });
});
