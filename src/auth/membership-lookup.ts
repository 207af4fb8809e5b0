import { selectRows, type SqlExecutor } from '../database/sql.js';

export async function isMember(db: SqlExecutor, userId: string, enterpriseId: string): Promise<boolean> {
  const rows = await selectRows<{ one: number }>(
    db,
    `SELECT 1 AS one FROM memberships WHERE user_id = $1 AND enterprise_id = $2`,
    [userId, enterpriseId],
  );
  return rows.length > 0;
}
