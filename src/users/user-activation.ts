import type { DataSource } from 'typeorm';
import { affectedRows } from '../database/sql.js';
import { AccountError } from './user-accounts.js';

/**
 * Locks a user out, or lets them back in, without touching their password or tokens: an
 * inactive user cannot log in and every token of theirs answers 401; activating them
 * again makes those same tokens work again. To end the tokens for good, revoke them.
 */
export async function setUserActive(dataSource: DataSource, email: string, active: boolean): Promise<void> {
  const updated = await affectedRows(
    dataSource,
    `UPDATE users SET is_active = $2, updated_at = CASE WHEN is_active = $2 THEN updated_at ELSE now() END
      WHERE lower(email) = lower($1)`,
    [email, active ? 1 : 0],
  );
  if (updated === 0) throw new AccountError(`No user has the email ${email}.`);
}
