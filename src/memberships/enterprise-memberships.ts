import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { pageRequest } from '../common/http/pagination.js';
import type { SqlExecutor } from '../database/sql.js';
import { selectPage, type Page } from '../database/tenant-page.js';

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
  const { rows, total } = await selectPage<MembershipRow>(
    db,
    {
      from: 'FROM memberships m WHERE m.enterprise_id = $1',
      parameters: [enterpriseId],
      columns: 'm.user_id, m.role, m.created_at',
      orderBy: 'm.created_at DESC, m.user_id DESC',
    },
    pageRequest(page),
  );
  return {
    records: rows.map((row) => ({ user_id: row.user_id, role: row.role, created_at: isoTimestamp(row.created_at) })),
    total,
  };
}
