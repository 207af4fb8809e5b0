import { writableAtAll } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
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

/** The abilities a token can be limited to: the fixed ones, then one `<path>:write` per writable resource. */
const ABILITY_LIST = [
  'read, changes:read, webhooks:manage, audit:read, tokens:manage',
  ...TENANT_RESOURCES.filter(writableAtAll).map((resource) => `${resource.path}:write`),
].join(', ');

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
      'token:create --email <value> --name <value> [--expires-in-days <value>] [--abilities <value>] [--enterprise <value>]',
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
    expect(header).toBe('id\tname\tcreated\tlast used\texpires\tabilities\tenterprises');
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

  it('token:create --abilities and --enterprise limit the token; token:list shows the limits', async () => {
    const token = await createToken([
      '--name',
      'Reporting',
      '--abilities',
      'changes:read,read',
      '--enterprise',
      tenant.enterpriseId.toUpperCase(),
    ]);
    const match = await findTokenUser(dataSource, token, undefined, tenant.enterpriseId);
    expect(match?.user.scope).toEqual({ abilities: ['read', 'changes:read'], enterprises: [tenant.enterpriseId] });
    expect(match?.user.membership).toEqual({ enterpriseId: tenant.enterpriseId, member: true, role: 'admin' });
    const id = parseToken(token)?.id ?? '';
    const line = (await cli(['token:list', '--email', email])).stdout.split('\n').find((l) => l.startsWith(id));
    expect(line?.split('\t').slice(-2)).toEqual(['read,changes:read', tenant.enterpriseId]);
    const unlimited = await createToken(['--name', 'Everything']);
    expect((await findTokenUser(dataSource, unlimited))?.user.scope).toBeUndefined();
    const listed = (await cli(['token:list', '--email', email])).stdout.split('\n');
    expect(
      listed
        .find((l) => l.startsWith(parseToken(unlimited)?.id ?? '-'))
        ?.split('\t')
        .slice(-2),
    ).toEqual(['all', 'all']);
  });

  it.each([
    [
      ['--abilities', 'read,delete:everything'],
      `Unknown ability delete:everything; the abilities are: ${ABILITY_LIST}.`,
    ],
    [['--abilities', ','], `--abilities needs at least one ability; the abilities are: ${ABILITY_LIST}.`],
    [['--enterprise', 'not-an-id'], 'No enterprise has the id not-an-id.'],
  ])('token:create %j is refused, saying why, and issues nothing', async (args, message) => {
    const before = (await cli(['token:list', '--email', email])).stdout;
    const run = await cli(['token:create', '--email', email, '--name', 'Bad', ...args]);
    expect({ code: run.code, stderr: run.stderr.trim(), stdout: run.stdout }).toEqual({
      code: 1,
      stderr: message,
      stdout: '',
    });
    expect((await cli(['token:list', '--email', email])).stdout).toBe(before);
  });

  it('token:create --enterprise refuses an enterprise the user is not a member of', async () => {
    const run = await cli([
      'token:create',
      '--email',
      email,
      '--name',
      'Other',
      '--enterprise',
      tenant.otherEnterpriseId,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe(`The user ${email} is not a member of the enterprise ${tenant.otherEnterpriseId}.`);
  });

  it('user:role sets a role, member:add and user:create take --role (the first member of an enterprise is admin)', async () => {
    const role = async (userEmail: string, enterpriseId: string) =>
      (
        await selectRows<{ role: string }>(
          dataSource,
          `SELECT m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE lower(u.email) = lower($1) AND m.enterprise_id = $2`,
          [userEmail, enterpriseId],
        )
      )[0]?.role;
    expect(await role(email, tenant.enterpriseId)).toBe('admin');
    expect(
      (await cli(['user:role', '--email', email, '--enterprise', tenant.enterpriseId, '--role', 'member'])).stdout,
    ).toBe('Role set to member.\n');
    expect(await role(email, tenant.enterpriseId)).toBe('member');
    await cli(['user:role', '--email', email, '--enterprise', tenant.enterpriseId, '--role', 'admin']);
    expect(await role(email, tenant.enterpriseId)).toBe('admin');
    const bad = await cli(['user:role', '--email', email, '--enterprise', tenant.enterpriseId, '--role', 'owner']);
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({
      code: 1,
      stderr: '--role must be admin or member.',
    });
    const outside = await cli([
      'user:role',
      '--email',
      email,
      '--enterprise',
      tenant.otherEnterpriseId,
      '--role',
      'admin',
    ]);
    expect(outside.stderr.trim()).toBe(
      `The user ${email} is not a member of the enterprise ${tenant.otherEnterpriseId}: run member:add first.`,
    );

    const created = await cli(['enterprise:create', '--name', 'Fresh']);
    expect(created.code).toBe(0);
    const fresh = created.stdout.trim();
    const tag = randomUUID().slice(0, 8);
    const first = `first-${tag}@example.com`;
    const second = `second-${tag}@example.com`;
    for (const [user, extra] of [
      [first, []],
      [second, []],
    ] as const) {
      const run = await cli([
        'user:create',
        '--email',
        user,
        '--name',
        'N',
        '--password',
        'long-enough-pw',
        '--enterprise',
        fresh,
        ...extra,
      ]);
      expect(run.code).toBe(0);
    }
    expect([await role(first, fresh), await role(second, fresh)]).toEqual(['admin', 'member']);
    await cli(['member:add', '--email', email, '--enterprise', fresh, '--role', 'admin']);
    expect(await role(email, fresh)).toBe('admin');
    const noEnterprise = await cli([
      'user:create',
      '--email',
      `x-${tag}@example.com`,
      '--name',
      'X',
      '--password',
      'long-enough-pw',
      '--role',
      'admin',
    ]);
    expect({ code: noEnterprise.code, stderr: noEnterprise.stderr.trim() }).toEqual({
      code: 1,
      stderr: '--role needs --enterprise.',
    });
  });

  it("audit:list prints the enterprise's trail newest first, filtered, and refuses a filter it cannot read", async () => {
    await createToken(['--name', 'Audited', '--abilities', 'read']);
    const run = await cli(['audit:list', '--enterprise', tenant.enterpriseId, '--action', 'token.issued']);
    expect(run.code).toBe(0);
    const [header, newest] = run.stdout.trim().split('\n');
    expect(header).toBe('time\tactor\tuser\ttoken\taction\ttarget\tdetails\tclient\trequest');
    const cells = newest?.split('\t') ?? [];
    expect(cells[0]).toMatch(ISO);
    expect(cells.slice(1, 5)).toEqual(['cli', '', '', 'token.issued']);
    expect(JSON.parse(cells[6] ?? '{}')).toMatchObject({ name: 'Audited', abilities: ['read'] });
    const none = await cli(['audit:list', '--enterprise', tenant.otherEnterpriseId, '--action', 'token.revoked']);
    expect(none.stdout).toBe('No audit events.\n');
    const bad = await cli(['audit:list', '--enterprise', tenant.enterpriseId, '--action', 'nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('The action must be one of: token.issued');
  });
});
