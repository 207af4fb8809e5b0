import type { DataSource } from 'typeorm';
import { CLI_ACTOR, recordAuditForMember } from '../audit/audit-trail.js';
import { selectRows } from '../database/sql.js';
import { AccountError } from './user-accounts.js';

/**
 * Locks a user out, or lets them back in, without touching their password or tokens: an
 * inactive user cannot log in and every token of theirs answers 401; activating them
 * again makes those same tokens work again. To end the tokens for good, revoke them. Each of
 * the user's enterprises gets the change in its audit trail, in the same transaction.
 */
export async function setUserActive(dataSource: DataSource, email: string, active: boolean): Promise<void> {
  await dataSource.transaction(async (db) => {
    const [user] = await selectRows<{ id: string }>(
      db,
      `SELECT id FROM users WHERE lower(email) = lower($1) FOR UPDATE`,
      [email],
    );
    if (!user) throw new AccountError(`No user has the email ${email}.`);
    await db.query(
      `UPDATE users SET is_active = $2, updated_at = CASE WHEN is_active = $2 THEN updated_at ELSE now() END WHERE id = $1`,
      [user.id, active ? 1 : 0],
    );
    await recordAuditForMember(
      db,
      user.id,
      null,
      CLI_ACTOR,
      {
        action: active ? 'user.activated' : 'user.deactivated',
        targetType: 'user',
        targetId: user.id,
      },
      !active,
    );
  });
}
