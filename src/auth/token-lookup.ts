import { selectRows, type SqlExecutor } from '../database/sql.js';
import { digestsEqual, parseToken, sha256Hex } from './access-token.js';
import type { AuthenticatedUser, EnterpriseRole } from '../common/access/authenticated-user.js';

/** A resolved token: its user, and whether its `last_used_at` is due to be written again. */
export interface TokenMatch {
  readonly user: AuthenticatedUser;
  /** Never used, or last used more than a minute ago. */
  readonly touchDue: boolean;
}

/**
 * The active user a plaintext token belongs to, or undefined (unknown, malformed, revoked,
 * expired, inactive). One indexed query by token id, then a constant-time digest comparison.
 * A login token older than `loginLifetimeMinutes` (when set) has expired; an
 * integration token expires at its own `expires_at`, if it has one.
 *
 * `enterpriseId`, the UUID of the request's enterprise header when it has one, is checked in
 * the same round trip: the answer says whether the user is a member (the enterprise check of
 * the guards reads it instead of asking again).
 */
export async function findTokenUser(
  db: SqlExecutor,
  plaintext: string,
  loginLifetimeMinutes?: number,
  enterpriseId?: string,
): Promise<TokenMatch | undefined> {
  const parsed = parseToken(plaintext);
  if (!parsed) return undefined;
  const [row] = await selectRows<{
    token_sha256: string;
    touch_due: boolean;
    id: string;
    name: string;
    email: string;
    role: EnterpriseRole | null;
    member: boolean | null;
    abilities: string[] | null;
    enterprise_ids: string[] | null;
  }>(
    db,
    `SELECT t.token_sha256, (t.last_used_at IS NULL OR t.last_used_at <= now() - interval '1 minute') AS touch_due,
            u.id, u.name, u.email, m.role, CASE WHEN $3::uuid IS NOT NULL THEN m.role IS NOT NULL END AS member,
            t.abilities, t.enterprise_ids::text[] AS enterprise_ids
       FROM access_tokens t JOIN users u ON u.id = t.user_id
       LEFT JOIN memberships m ON m.user_id = u.id AND m.enterprise_id = $3::uuid
      WHERE t.id = $1 AND u.is_active = 1
        AND (t.expires_at IS NULL OR t.expires_at > now())
        AND (t.kind <> 'login' OR $2::integer IS NULL OR t.created_at > now() - make_interval(mins => $2::integer))`,
    [parsed.id, loginLifetimeMinutes ?? null, enterpriseId ?? null],
  );
  if (!row || !digestsEqual(row.token_sha256, sha256Hex(parsed.secret))) return undefined;
  const scoped = row.abilities !== null || row.enterprise_ids !== null;
  const user: AuthenticatedUser = {
    id: row.id,
    name: row.name,
    email: row.email,
    tokenId: parsed.id,
    ...(scoped ? { scope: { abilities: row.abilities, enterprises: row.enterprise_ids } } : {}),
  };
  return {
    user:
      enterpriseId === undefined || row.member === null
        ? user
        : {
            ...user,
            membership: { enterpriseId, member: row.member, ...(row.role === null ? {} : { role: row.role }) },
          },
    touchDue: row.touch_due,
  };
}
