import { selectRows, type SqlExecutor } from '../../database/sql.js';
import { digestsEqual, parseToken, sha256Hex } from './access-token.js';
import type { AuthenticatedUser } from './authenticated-user.js';

/**
 * The active user a plaintext token belongs to, or undefined (unknown, malformed, revoked,
 * inactive). One indexed query by token id, then a constant-time digest comparison (R12).
 */
export async function findTokenUser(db: SqlExecutor, plaintext: string): Promise<AuthenticatedUser | undefined> {
  const parsed = parseToken(plaintext);
  if (!parsed) return undefined;
  const [row] = await selectRows<{ token_sha256: string; id: string; name: string; email: string }>(
    db,
    `SELECT t.token_sha256, u.id, u.name, u.email
       FROM access_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.id = $1 AND u.is_active = 1`,
    [parsed.id],
  );
  if (!row || !digestsEqual(row.token_sha256, sha256Hex(parsed.secret))) return undefined;
  return { id: row.id, name: row.name, email: row.email };
}
