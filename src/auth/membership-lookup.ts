import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';

/** The user's role in the enterprise; undefined when not a member. */
export async function roleOf(
  db: SqlExecutor,
  userId: string,
  enterpriseId: string,
): Promise<EnterpriseRole | undefined> {
  const [row] = await selectRows<{ role: EnterpriseRole }>(
    db,
    `SELECT role FROM memberships WHERE user_id = $1 AND enterprise_id = $2`,
    [userId, enterpriseId],
  );
  return row?.role;
}
