import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { AuditEventRecord } from '../../src/audit/audit-trail.js';
import type { EnterpriseTokenRecord } from '../../src/auth/enterprise-tokens.js';
import { TokenAdmin } from '../../src/auth/token-admin.js';
import { UserAccounts } from '../../src/users/user-accounts.js';
import { apiSuite } from '../helpers/api-suite.js';
import { apiHeaders, loginToken } from '../helpers/fixtures.js';

/** An enterprise's admins see and revoke its integration tokens through v2, never their secrets. */
describe('GET and DELETE /api/v2/tokens', () => {
  const bot = { id: randomUUID(), email: `bot-${randomUUID().slice(0, 8)}@example.com`, password: 'bot-password' };
  const suite = apiSuite({
    records: (tenant) => ({
      users: [
        {
          ...bot,
          name: 'CRM Bot',
          is_active: true,
          enterprise_ids: [tenant.enterpriseId, tenant.otherEnterpriseId],
        },
      ],
    }),
  });
  const v2 = () => suite.headers('v2');

  /** A leads page read with `token` in `enterpriseId`: whether the token works there. */
  const leadsWith = (token: string, enterpriseId: string) =>
    suite.t.app.inject({ method: 'GET', url: '/api/v2/leads', headers: apiHeaders('v2', token, enterpriseId) });

  async function issue(name: string, extra: { abilities?: string[]; enterpriseIds?: string[] } = {}) {
    const token = await new TokenAdmin(suite.t.dataSource).issueIntegrationToken({ email: bot.email, name, ...extra });
    return { token, id: token.split('|')[0] ?? '' };
  }

  it('lists the integration tokens that can act for the enterprise, newest first, without their secrets', async () => {
    const everywhere = await issue('CRM sync', { abilities: ['read', 'leads:write'] });
    const here = await issue('Reporting', { enterpriseIds: [suite.tenant.enterpriseId] });
    const elsewhere = await issue('Other office', { enterpriseIds: [suite.tenant.otherEnterpriseId] });
    // A login token is the user's own session: not listed.
    await loginToken(suite.t.app, bot.email, bot.password);

    const res = await suite.t.app.inject({ method: 'GET', url: '/api/v2/tokens', headers: v2() });
    expect(res.statusCode).toBe(200);
    const data = res.json<{ data: EnterpriseTokenRecord[] }>().data;
    expect(data.map((t) => [t.id, t.name, t.user_id, t.abilities, t.enterprise_ids])).toEqual([
      [here.id, 'Reporting', bot.id, null, [suite.tenant.enterpriseId]],
      [everywhere.id, 'CRM sync', bot.id, ['read', 'leads:write'], null],
    ]);
    for (const token of [everywhere, here, elsewhere]) {
      expect(res.body).not.toContain(token.token.split('|')[1]);
    }
  });

  it('revokes one (401 from then on), records who did it, and refuses another enterprise’s token or an unknown id', async () => {
    const doomed = await issue('Old laptop');
    const elsewhere = await issue('Branch', { enterpriseIds: [suite.tenant.otherEnterpriseId] });
    const before = await leadsWith(doomed.token, suite.tenant.enterpriseId);
    expect(before.statusCode).toBe(200);

    const revoked = await suite.t.app.inject({ method: 'DELETE', url: `/api/v2/tokens/${doomed.id}`, headers: v2() });
    expect(revoked.statusCode).toBe(204);
    const after = await leadsWith(doomed.token, suite.tenant.enterpriseId);
    expect(after.statusCode).toBe(401);
    const trail = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/audit-events?action=token.revoked',
      headers: v2(),
    });
    const [event] = trail.json<{ data: AuditEventRecord[] }>().data;
    expect([event?.target, event?.actor.type, event?.actor.user_id]).toEqual([
      { type: 'token', id: doomed.id },
      'user',
      suite.tenant.user.id,
    ]);

    const foreign = await suite.t.app.inject({
      method: 'DELETE',
      url: `/api/v2/tokens/${elsewhere.id}`,
      headers: v2(),
    });
    expect(foreign.statusCode).toBe(403);
    const unknown = await suite.t.app.inject({
      method: 'DELETE',
      url: `/api/v2/tokens/${randomUUID()}`,
      headers: v2(),
    });
    expect(unknown.statusCode).toBe(404);
    const stillWorks = await leadsWith(elsewhere.token, suite.tenant.otherEnterpriseId);
    expect(stillWorks.statusCode).toBe(200);
  });

  it('is for admins only, and for limited tokens with tokens:manage', async () => {
    const limited = await new TokenAdmin(suite.t.dataSource).issueIntegrationToken({
      email: suite.tenant.user.email,
      name: 'Reader',
      abilities: ['read'],
    });
    const refused = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/tokens',
      headers: apiHeaders('v2', limited, suite.tenant.enterpriseId),
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ message: "This token cannot manage the enterprise's tokens." });
    await new UserAccounts(suite.t.dataSource).setRole(bot.email, suite.tenant.enterpriseId, 'member');
    const member = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/tokens',
      headers: apiHeaders('v2', await loginToken(suite.t.app, bot.email, bot.password), suite.tenant.enterpriseId),
    });
    expect(member.statusCode).toBe(403);
    expect(member.json()).toEqual({ message: "Only an admin of this enterprise can manage the enterprise's tokens." });
  });
});
