import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditRetention } from '../../src/audit/audit-retention.js';
import type { AuditEventRecord } from '../../src/audit/audit-trail.js';
import { TokenAdmin } from '../../src/auth/token-admin.js';
import { selectRows } from '../../src/database/sql.js';
import { setUserActive } from '../../src/users/user-activation.js';
import { UserAccounts } from '../../src/users/user-accounts.js';
import { apiSuite } from '../helpers/api-suite.js';
import { apiHeaders, loginToken } from '../helpers/fixtures.js';
import { runCli } from '../helpers/run-cli.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { WebhookResolver } from '../../src/webhook-endpoints/webhook-resolver.js';

interface AuditEventRecordInFile {
  id: string;
  enterprise_id: string;
  action: string;
  [field: string]: unknown;
}

const member = {
  id: randomUUID(),
  email: `audit-member-${randomUUID().slice(0, 8)}@example.com`,
  password: 'member-pw',
};

/**
 * The audit trail: every audited action writes its entry in its own transaction, admins read it
 * newest first with filters, and no entry holds a secret or a token.
 */
describe('the audit trail', () => {
  const suite = apiSuite({
    records: (tenant) => ({
      users: [{ ...member, name: 'Ada Auditor', is_active: true, enterprise_ids: [tenant.enterpriseId] }],
    }),
  });
  const v2 = () => suite.headers('v2');
  beforeAll(() => {
    // A public address for the receivers' name: no lookup leaves the machine.
    suite.t.app.get(WebhookResolver).use(() => Promise.resolve([{ address: '93.184.216.34', family: 4 }]));
  });
  const secrets: string[] = [];

  async function trail(query = ''): Promise<AuditEventRecord[]> {
    const res = await suite.t.app.inject({ method: 'GET', url: `/api/v2/audit-events${query}`, headers: v2() });
    expect(res.statusCode).toBe(200);
    return res.json<{ data: AuditEventRecord[] }>().data;
  }

  async function endpoint(method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: unknown) {
    return suite.t.app.inject({
      method,
      url: `/api/v2/webhook-endpoints${path}`,
      headers: payload === undefined ? v2() : { ...v2(), 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  }

  it("records each endpoint action with its user, token, client and request, newest first, for the enterprise's admins", async () => {
    const created = await endpoint('POST', '', { url: 'https://hooks.example.test/audit?key=receiver-secret' });
    expect(created.statusCode).toBe(201);
    const { id, secret, created_by } = created.json<{ data: { id: string; secret: string; created_by: string } }>()
      .data;
    expect(created_by).toBe(suite.tenant.user.id);
    secrets.push(secret, 'receiver-secret');
    expect((await endpoint('PATCH', `/${id}`, { description: 'CRM', enabled: false })).statusCode).toBe(200);
    const rotated = await endpoint('POST', `/${id}/rotate-secret`);
    secrets.push(rotated.json<{ data: { secret: string } }>().data.secret);
    expect((await endpoint('POST', `/${id}/replay`, { from_beginning: true })).statusCode).toBe(202);
    expect((await endpoint('DELETE', `/${id}`)).statusCode).toBe(204);

    const all = await trail();
    // Oldest: the suite's fixture, loaded by the importer, on the trail as the operator's import.
    expect(all.at(-1)).toMatchObject({
      action: 'enterprise.imported',
      actor: { type: 'cli', user_id: null, token_id: null },
      target: { type: 'enterprise', id: suite.tenant.enterpriseId },
    });
    const events = all.slice(0, -1);
    expect(events.map((e) => [e.action, e.target])).toEqual([
      ['webhook_endpoint.deleted', { type: 'webhook_endpoint', id }],
      ['webhook_endpoint.replayed', { type: 'webhook_endpoint', id }],
      ['webhook_endpoint.secret_rotated', { type: 'webhook_endpoint', id }],
      ['webhook_endpoint.updated', { type: 'webhook_endpoint', id }],
      ['webhook_endpoint.created', { type: 'webhook_endpoint', id }],
    ]);
    const tokenId = suite.token.split('|')[0];
    for (const event of events) {
      expect(event.actor).toEqual({ type: 'user', user_id: suite.tenant.user.id, token_id: tokenId });
      expect(event.client_ip).toBe('127.0.0.1');
      expect(event.request_id).toEqual(expect.any(String));
    }
    expect(events[3]?.details).toEqual({ fields: ['description', 'enabled'] });
    expect(events[1]?.details).toEqual({ from: 'beginning' });
    expect(await trail('?action=webhook_endpoint.created')).toHaveLength(1);
    expect(await trail(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect(await trail(`?until=${encodeURIComponent(events[4]?.occurred_at ?? '')}`)).toEqual(all.slice(-1));
  });

  it('refuses a filter it cannot read (422), and a member who is not an admin (403)', async () => {
    const bad = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/audit-events?action=nope&since=yesterday',
      headers: v2(),
    });
    expect(bad.statusCode).toBe(422);
    expect(Object.keys(bad.json<{ errors: Record<string, unknown> }>().errors).sort()).toEqual(['action', 'since']);
    await new UserAccounts(suite.t.dataSource).setRole(member.email, suite.tenant.enterpriseId, 'member');
    const token = await loginToken(suite.t.app, member.email, member.password);
    const refused = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/audit-events',
      headers: apiHeaders('v2', token, suite.tenant.enterpriseId),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ message: 'Only an admin of this enterprise can read the audit trail.' });
  });

  it('records CLI actions (tokens, roles, lockouts) in each enterprise they concern; endpoints outlive their creator', async () => {
    const created = await endpoint('POST', '', { url: 'https://hooks.example.test/kept' });
    const id = created.json<{ data: { id: string } }>().data.id;
    const accounts = new UserAccounts(suite.t.dataSource);
    const token = await new TokenAdmin(suite.t.dataSource).issueIntegrationToken({
      email: suite.tenant.user.email,
      name: 'Reporting',
      abilities: ['read'],
    });
    secrets.push(token, token.split('|')[1] ?? token);
    await accounts.setRole(suite.tenant.user.email, suite.tenant.enterpriseId, 'member');
    await setUserActive(suite.t.dataSource, suite.tenant.user.email, false);
    await setUserActive(suite.t.dataSource, suite.tenant.user.email, true);
    await accounts.setRole(suite.tenant.user.email, suite.tenant.enterpriseId, 'admin');
    await new TokenAdmin(suite.t.dataSource).revoke(token.split('|')[0] ?? '');

    const [created_by_user] = await selectRows<{ endpoints: number }>(
      suite.t.dataSource,
      `SELECT count(*)::int AS endpoints FROM webhook_endpoints WHERE enterprise_id = $1 AND created_by = $2`,
      [suite.tenant.enterpriseId, suite.tenant.user.id],
    );
    const kept = created_by_user?.endpoints ?? -1;
    expect(kept).toBeGreaterThanOrEqual(1);
    const events = (await trail()).slice(0, 6);
    expect(events.map((e) => [e.action, e.actor.type, e.details])).toEqual([
      ['token.revoked', 'cli', { user_id: suite.tenant.user.id }],
      ['role.changed', 'cli', { role: 'admin' }],
      ['user.activated', 'cli', {}],
      ['user.deactivated', 'cli', { endpoints_kept: kept }],
      ['role.changed', 'cli', { role: 'member', endpoints_kept: kept }],
      [
        'token.issued',
        'cli',
        { user_id: suite.tenant.user.id, name: 'Reporting', abilities: ['read'], expires_in_days: null },
      ],
    ]);
    // The enterprise owns the endpoint: still there, still enabled.
    const [row] = await selectRows<{ enabled: boolean; created_by: string }>(
      suite.t.dataSource,
      `SELECT enabled, created_by FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    expect(row).toEqual({ enabled: true, created_by: suite.tenant.user.id });
  });

  it('writes an entry with its action or not at all, and never changes one', async () => {
    const created = await endpoint('POST', '', { url: 'https://hooks.example.test/atomic' });
    const id = created.json<{ data: { id: string } }>().data.id;
    const before = (await trail()).length;
    // The trail refuses this action's entry: the delete it records is rolled back with it.
    await suite.t.dataSource.query(
      `ALTER TABLE audit_events ADD CONSTRAINT test_refuse_delete CHECK (action <> 'webhook_endpoint.deleted') NOT VALID`,
    );
    try {
      expect((await endpoint('DELETE', `/${id}`)).statusCode).toBe(500);
    } finally {
      await suite.t.dataSource.query(`ALTER TABLE audit_events DROP CONSTRAINT test_refuse_delete`);
    }
    expect(await selectRows(suite.t.dataSource, `SELECT 1 FROM webhook_endpoints WHERE id = $1`, [id])).toHaveLength(1);
    expect((await trail()).length).toBe(before);
    await expect(suite.t.dataSource.query(`UPDATE audit_events SET action = 'x'`)).rejects.toThrow(
      /audit events are never changed/,
    );
  });

  it("records a known user's failed logins (not an unknown email's), an export and a key rotation", async () => {
    const wrong = await suite.t.app.inject({
      method: 'POST',
      url: '/api/v2/login',
      payload: { email: suite.tenant.user.email, password: 'not-the-password' },
    });
    expect(wrong.statusCode).toBe(401);
    const unknown = await suite.t.app.inject({
      method: 'POST',
      url: '/api/v2/login',
      payload: { email: 'nobody-at-all@example.com', password: 'not-the-password' },
    });
    expect(unknown.statusCode).toBe(401);
    // Written after the answer, so a known email answers as fast as an unknown one.
    for (let i = 0; i < 100 && (await trail('?action=login.failed')).length === 0; i++) {
      await new Promise((done) => setTimeout(done, 20));
    }
    const failed = await trail('?action=login.failed');
    expect(failed.map((e) => [e.actor, e.target, e.details, e.client_ip])).toEqual([
      [
        { type: 'user', user_id: null, token_id: null },
        { type: 'user', id: suite.tenant.user.id },
        { reason: 'password' },
        '127.0.0.1',
      ],
    ]);
    secrets.push('not-the-password');

    const env = { DATABASE_URL: suite.t.database.url, DATABASE_POOL_MAX: '1', APP_KEY: TEST_APP_KEY };
    const dir = mkdtempSync(join(tmpdir(), 'audit-export-'));
    try {
      const exported = await runCli(
        ['export', '--enterprise', suite.tenant.enterpriseId, '--output', join(dir, 'e.json')],
        {
          env,
        },
      );
      expect(exported.code).toBe(0);
      // The export holds the enterprise's trail, and only its own.
      const file = JSON.parse(readFileSync(join(dir, 'e.json'), 'utf8')) as { audit_events: AuditEventRecordInFile[] };
      const inFile = file.audit_events;
      expect(inFile.length).toBeGreaterThan(3);
      expect(new Set(inFile.map((e) => e.enterprise_id))).toEqual(new Set([suite.tenant.enterpriseId]));
      expect(inFile.find((e) => e.action === 'login.failed')).toMatchObject({
        actor: 'user',
        target_type: 'user',
        target_id: suite.tenant.user.id,
        details: { reason: 'password' },
      });
      const stored = await selectRows<{ n: number }>(suite.t.dataSource, `SELECT count(*)::int AS n FROM audit_events`);

      // A file whose trail names an enterprise nobody holds is refused at that entry: nothing is
      // written, not even the import's own entry.
      const stray = { ...inFile[0], id: randomUUID(), enterprise_id: randomUUID() };
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...file, audit_events: [...inFile, stray] }));
      const refused = await runCli(['import', join(dir, 'bad.json')], { env });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(`audit_events[${inFile.length}].enterprise_id: is not an enterprise`);
      expect(await selectRows(suite.t.dataSource, `SELECT count(*)::int AS n FROM audit_events`)).toEqual(stored);

      // An entry the importer cannot read is refused at each of its fields, and nothing is written.
      const malformed = { ...inFile[0], id: randomUUID(), occurred_at: 'yesterday', action: 'enterprise.renamed' };
      writeFileSync(join(dir, 'malformed.json'), JSON.stringify({ ...file, audit_events: [...inFile, malformed] }));
      const unread = await runCli(['import', join(dir, 'malformed.json')], { env });
      expect(unread.code).not.toBe(0);
      expect(unread.stderr).toContain(`audit_events[${inFile.length}].occurred_at: `);
      expect(unread.stderr).toContain(`audit_events[${inFile.length}].action: `);
      expect(await selectRows(suite.t.dataSource, `SELECT count(*)::int AS n FROM audit_events`)).toEqual(stored);

      // Importing the export again adds none of the entries it holds, and records the import.
      const again = await runCli(['import', join(dir, 'e.json')], { env });
      expect(again.code).toBe(0);
      const [imported] = await trail('?action=enterprise.imported');
      expect([imported?.actor.type, imported?.target]).toEqual([
        'cli',
        { type: 'enterprise', id: suite.tenant.enterpriseId },
      ]);
      const counted = await selectRows<{ n: number }>(
        suite.t.dataSource,
        `SELECT count(*)::int AS n FROM audit_events`,
      );
      // One import entry for each enterprise the file names: this one, and its users' others.
      const named = new Set([
        ...file.audit_events.map((e) => e.enterprise_id),
        ...(file as unknown as { users: { enterprise_ids: string[] }[] }).users.flatMap((u) => u.enterprise_ids),
      ]);
      expect(counted[0]?.n).toBe((stored[0]?.n ?? 0) + named.size);

      // An entry whose id is stored, even under another enterprise, is never changed or doubled.
      const first = inFile[0];
      const moved = { ...first, enterprise_id: suite.tenant.otherEnterpriseId, target_type: 'changed' };
      writeFileSync(join(dir, 'moved.json'), JSON.stringify({ audit_events: [moved] }));
      expect((await runCli(['import', join(dir, 'moved.json')], { env })).code).toBe(0);
      expect(
        await selectRows(suite.t.dataSource, `SELECT enterprise_id, target_type FROM audit_events WHERE id = $1`, [
          first?.id,
        ]),
      ).toEqual([{ enterprise_id: first?.enterprise_id, target_type: first?.target_type }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect((await runCli(['key:rotate'], { env })).code).toBe(0);
    const [rotated] = await trail();
    const [exportedEvent] = await trail('?action=enterprise.exported');
    expect([exportedEvent?.action, exportedEvent?.actor.type, exportedEvent?.target, exportedEvent?.details]).toEqual([
      'enterprise.exported',
      'cli',
      { type: 'enterprise', id: suite.tenant.enterpriseId },
      { include_secrets: false },
    ]);
    expect([rotated?.action, rotated?.target.type]).toEqual(['key.rotated', 'key']);
  });

  it('keeps entries for AUDIT_RETENTION_DAYS (400) and removes older ones in batches', async () => {
    await suite.t.dataSource.query(
      `INSERT INTO audit_events (enterprise_id, occurred_at, actor, action, target_type)
       SELECT $1, now() - interval '401 days', 'system', 'key.rotated', 'key' FROM generate_series(1, 5)`,
      [suite.tenant.enterpriseId],
    );
    const kept = (await trail()).length;
    expect(await suite.t.app.get(AuditRetention).prune(2)).toBe(5);
    expect((await trail()).length).toBe(kept - 5);
    const [left] = await selectRows<{ old: number }>(
      suite.t.dataSource,
      `SELECT count(*)::int AS old FROM audit_events WHERE occurred_at < now() - interval '400 days'`,
    );
    expect(left?.old).toBe(0);
  });

  it('holds no secret and no token in any entry', async () => {
    const rows = await selectRows<{ row: string }>(
      suite.t.dataSource,
      `SELECT row_to_json(a)::text AS row FROM audit_events a`,
    );
    expect(rows.length).toBeGreaterThan(10);
    expect(secrets.length).toBeGreaterThan(4);
    for (const { row } of rows) for (const secret of [...secrets, suite.token]) expect(row).not.toContain(secret);
  });
});
