import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import type { InjectOptions } from 'light-my-request';
import { routeRegistryOf } from '../../src/app.factory.js';
import { TokenAdmin } from '../../src/auth/token-admin.js';
import { TOKEN_ABILITIES } from '../../src/auth/token-abilities.js';
import { apiVersionOf } from '../../src/common/http/api-version.js';
import type { RouteEntry } from '../../src/common/http/route-registry.js';
import { writableIn } from '../../src/resources/tenant-resource.js';
import { TENANT_RESOURCES } from '../../src/resources/tenant-resources.js';
import { UserAccounts } from '../../src/users/user-accounts.js';
import { apiSuite } from '../helpers/api-suite.js';
import { apiHeaders } from '../helpers/fixtures.js';

/**
 * Least privilege, over every route the application registered (so a new route is in the
 * matrix without edits): which token, role and enterprise binding gets a 403 of its own, and
 * which answers exactly as a token without limits does. What each route needs is written here
 * from the rules users are told, not read from the routes' metadata:
 * - the webhook endpoint routes need `webhooks:manage`, the audit trail `audit:read`, the
 *   enterprise's tokens `tokens:manage`, and each an admin of the enterprise;
 * - the change feed needs `changes:read`; any other GET needs `read`;
 * - a write of a writable resource needs `<resource>:write`; writes of read-only resources
 *   answer their 403 to every token alike; logout takes any token.
 */
const member = { id: randomUUID(), email: `member-${randomUUID().slice(0, 8)}@example.com`, password: 'member-pw' };
const both = { id: randomUUID(), email: `both-${randomUUID().slice(0, 8)}@example.com`, password: 'both-pw' };

type Need = { kind: 'ability'; ability: string; admin: boolean } | { kind: 'any' };

function resourceOf(url: string): string | undefined {
  return /^\/api\/v[12]\/([^/]+)/.exec(url)?.[1];
}

/** What the rules say a route needs. */
function needOf(route: RouteEntry): Need {
  const resource = resourceOf(route.url);
  if (resource === 'logout') return { kind: 'any' };
  if (resource === 'webhook-endpoints') return { kind: 'ability', ability: 'webhooks:manage', admin: true };
  if (resource === 'changes') return { kind: 'ability', ability: 'changes:read', admin: false };
  if (resource === 'audit-events') return { kind: 'ability', ability: 'audit:read', admin: true };
  if (resource === 'tokens') return { kind: 'ability', ability: 'tokens:manage', admin: true };
  if (route.method === 'GET') return { kind: 'ability', ability: 'read', admin: false };
  const version = apiVersionOf(route.url);
  const written = TENANT_RESOURCES.find((r) => r.path === resource && version !== undefined && writableIn(r, version));
  if (written) return { kind: 'ability', ability: `${written.path}:write`, admin: false };
  return { kind: 'any' };
}

interface Profile {
  readonly name: string;
  readonly abilities?: string[];
  /** Bound to the other enterprise only (the user belongs to both). */
  readonly boundElsewhere?: boolean;
  /** A member, not an admin, of the header's enterprise. */
  readonly memberRole?: boolean;
}

const PROFILES: Profile[] = [
  { name: 'no abilities (full access)' },
  ...TOKEN_ABILITIES.map((ability) => ({ name: `only ${ability}`, abilities: [ability] })),
  { name: 'read and leads:write', abilities: ['read', 'leads:write'] },
  { name: 'bound to another enterprise', boundElsewhere: true },
  { name: 'a member (not admin), no abilities', memberRole: true },
];

/** The 403 of this profile on this route, or undefined when the scope lets it through. */
function expectedDenial(route: RouteEntry, profile: Profile, withHeader: boolean): string | undefined {
  const need = needOf(route);
  // The header's enterprise, or the enterprise a retrieve names: the tenant's, not the bound one.
  const namesEnterprise =
    withHeader || (route.method === 'GET' && resourceOf(route.url) === 'enterprises' && route.url.endsWith('/:id'));
  if (profile.boundElsewhere && namesEnterprise) return 'This token cannot act for this enterprise.';
  if (need.kind === 'any') return undefined;
  if (profile.abilities && !profile.abilities.includes(need.ability))
    return `This token cannot ${words(need.ability)}.`;
  if (need.admin && profile.memberRole) return `Only an admin of this enterprise can ${words(need.ability)}.`;
  return undefined;
}

function words(ability: string): string {
  const known: Record<string, string> = {
    read: 'read records',
    'changes:read': 'read the change feed',
    'webhooks:manage': 'manage webhook endpoints',
    'audit:read': 'read the audit trail',
    'tokens:manage': "manage the enterprise's tokens",
  };
  return known[ability] ?? `write ${ability.replace(/:write$/, '')}`;
}

const SCOPE_MESSAGES = /^(This token cannot|Only an admin of this enterprise)/;

describe('roles, abilities and enterprise bindings over every route', () => {
  const suite = apiSuite({
    records: (tenant) => ({
      users: [
        { ...member, name: 'Mia Member', is_active: true, enterprise_ids: [tenant.enterpriseId] },
        { ...both, name: 'Bo Both', is_active: true, enterprise_ids: [tenant.enterpriseId, tenant.otherEnterpriseId] },
      ],
    }),
  });
  const tokens = new Map<string, string>();

  async function issue(profile: Profile): Promise<string> {
    const admin = new TokenAdmin(suite.t.dataSource);
    const email = profile.memberRole ? member.email : both.email;
    return admin.issueIntegrationToken({
      email,
      name: profile.name,
      ...(profile.abilities ? { abilities: profile.abilities } : {}),
      ...(profile.boundElsewhere ? { enterpriseIds: [suite.tenant.otherEnterpriseId] } : {}),
    });
  }

  async function tokenOf(profile: Profile): Promise<string> {
    let token = tokens.get(profile.name);
    if (token === undefined) {
      if (profile.memberRole) {
        await new UserAccounts(suite.t.dataSource).setRole(member.email, suite.tenant.enterpriseId, 'member');
      }
      token = await issue(profile);
      tokens.set(profile.name, token);
    }
    return token;
  }

  function requestOf(route: RouteEntry, token: string | undefined): { options: InjectOptions; withHeader: boolean } {
    const version = apiVersionOf(route.url) ?? 'v2';
    const resource = resourceOf(route.url);
    const id = resource === 'enterprises' ? suite.tenant.enterpriseId : randomUUID();
    const url = route.url.replace(/:[a-zA-Z]+/g, id).replace(/\*$/, id);
    const withHeader = !['enterprises', 'logout'].includes(resource ?? '');
    const headers =
      token === undefined ? {} : apiHeaders(version, token, withHeader ? suite.tenant.enterpriseId : undefined);
    const write = route.method !== 'GET';
    return {
      options: {
        method: route.method,
        url,
        headers: write ? { ...headers, 'content-type': 'application/json' } : headers,
        ...(write ? { payload: '{}' } : {}),
      },
      withHeader,
    };
  }

  /** Routes that need a token (the others answer alike whatever token comes), logout apart. */
  async function guardedRoutes(): Promise<RouteEntry[]> {
    const guarded: RouteEntry[] = [];
    for (const route of routeRegistryOf(suite.t.app).list()) {
      if (resourceOf(route.url) === 'logout') continue;
      const res = await suite.t.app.inject(requestOf(route, undefined).options);
      // A signature-provider webhook answers 401 of its own (no signature): it takes no token.
      if (res.statusCode === 401 && res.json<{ message?: string }>().message === 'Unauthenticated.')
        guarded.push(route);
    }
    return guarded;
  }

  it('is derived from the router: every guarded route of both versions is in it', async () => {
    const routes = await guardedRoutes();
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.some((r) => r.url.startsWith('/api/v2/webhook-endpoints'))).toBe(true);
    expect(routes.some((r) => r.url.startsWith('/api/v1/leads') && r.method === 'POST')).toBe(true);
  });

  it.each(PROFILES)(
    '$name: 403 exactly where the rules say, in their words; every other answer as for a full token',
    async (profile) => {
      const full = await tokenOf(PROFILES[0] as Profile);
      const token = await tokenOf(profile);
      const mismatches: string[] = [];
      for (const route of await guardedRoutes()) {
        const { options, withHeader } = requestOf(route, token);
        const res = await suite.t.app.inject(options);
        const denial = expectedDenial(route, profile, withHeader);
        const message = res.statusCode === 403 ? (res.json<{ message?: string }>().message ?? '') : '';
        if (denial !== undefined) {
          if (res.statusCode !== 403 || message !== denial)
            mismatches.push(`${route.method} ${route.url}: ${res.statusCode} "${message}", expected 403 "${denial}"`);
          continue;
        }
        if (SCOPE_MESSAGES.test(message)) {
          mismatches.push(`${route.method} ${route.url}: refused ("${message}") where the rules allow it`);
          continue;
        }
        const asFull = await suite.t.app.inject(requestOf(route, full).options);
        if (asFull.statusCode !== res.statusCode)
          mismatches.push(
            `${route.method} ${route.url}: ${res.statusCode} where a full token gets ${asFull.statusCode}`,
          );
      }
      expect(mismatches).toEqual([]);
    },
  );

  it('any token may log out, whatever it may do otherwise', async () => {
    for (const profile of PROFILES.slice(1)) {
      const token = await issue(profile);
      const out = await suite.t.app.inject({ method: 'POST', url: '/api/v2/logout', headers: apiHeaders('v2', token) });
      expect({ profile: profile.name, status: out.statusCode }).toEqual({ profile: profile.name, status: 204 });
    }
  });

  it('a role change and a revoked ability take effect at the next request', async () => {
    const headers = () => ({ ...apiHeaders('v2', suite.token, suite.tenant.enterpriseId) });
    // The tenant's user imported before roles existed is an admin: it manages endpoints.
    expect(
      (await suite.t.app.inject({ method: 'GET', url: '/api/v2/webhook-endpoints', headers: headers() })).statusCode,
    ).toBe(200);
    const accounts = new UserAccounts(suite.t.dataSource);
    await accounts.setRole(suite.tenant.user.email, suite.tenant.enterpriseId, 'member');
    const refused = await suite.t.app.inject({ method: 'GET', url: '/api/v2/webhook-endpoints', headers: headers() });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ message: 'Only an admin of this enterprise can manage webhook endpoints.' });
    // Records are still read and written as before.
    expect((await suite.t.app.inject({ method: 'GET', url: '/api/v2/leads', headers: headers() })).statusCode).toBe(
      200,
    );
    await accounts.setRole(suite.tenant.user.email, suite.tenant.enterpriseId, 'admin');
    expect(
      (await suite.t.app.inject({ method: 'GET', url: '/api/v2/webhook-endpoints', headers: headers() })).statusCode,
    ).toBe(200);
  });

  it('a bound token lists only the enterprises it is bound to', async () => {
    const bound = await tokenOf(PROFILES.find((p) => p.boundElsewhere) as Profile);
    const res = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/enterprises',
      headers: apiHeaders('v2', bound),
    });
    expect(res.json<{ data: { id: string }[] }>().data.map((e) => e.id)).toEqual([suite.tenant.otherEnterpriseId]);
    const full = await tokenOf(PROFILES[0] as Profile);
    const all = await suite.t.app.inject({
      method: 'GET',
      url: '/api/v2/enterprises',
      headers: apiHeaders('v2', full),
    });
    expect(
      all
        .json<{ data: { id: string }[] }>()
        .data.map((e) => e.id)
        .sort(),
    ).toEqual([suite.tenant.enterpriseId, suite.tenant.otherEnterpriseId].sort());
  });
});
