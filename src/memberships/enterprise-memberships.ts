import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { pageRequest } from '../common/http/pagination.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import type { Page } from '../database/tenant-page.js';

/** A member of the enterprise and the role it holds there. */
export interface MembershipRecord {
  user_id: string;
  role: EnterpriseRole;
  created_at: string;
}

interface MembershipRow {
  user_id: string;
  role: EnterpriseRole;
  created_at: Date;
}

/** A page of the enterprise's memberships, newest first (as the users list orders its members). */
export async function listMemberships(
  db: SqlExecutor,
  enterpriseId: string,
  page: number,
): Promise<Page<MembershipRecord>> {
  const { limit, offset } = pageRequest(page);
  const [count] = await selectRows<{ total: number }>(
    db,
    `SELECT count(*)::int AS total FROM memberships m WHERE m.enterprise_id = $1`,
    [enterpriseId],
  );
  const rows = await selectRows<MembershipRow>(
    db,
    `SELECT m.user_id, m.role, m.created_at FROM memberships m WHERE m.enterprise_id = $1
      ORDER BY m.created_at DESC, m.user_id DESC LIMIT $2 OFFSET $3`,
    [enterpriseId, limit, offset],
  );
  return {
    records: rows.map((row) => ({ user_id: row.user_id, role: row.role, created_at: isoTimestamp(row.created_at) })),
    total: count?.total ?? 0,
  };
}
