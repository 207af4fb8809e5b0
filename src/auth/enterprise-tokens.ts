import { ForbiddenException } from '@nestjs/common';
import { recordAuditForMember, type AuditActor } from '../audit/audit-trail.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { isoTimestamp } from '../common/http/iso-timestamp.js';
import { pageRequest } from '../common/http/pagination.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { newestFirst, selectPage, type Page } from '../database/tenant-page.js';

export const TOKEN_MODEL = 'Token';

/** An integration token as an admin of its enterprise sees it: never its secret or digest. */
export interface EnterpriseTokenRecord {
  id: string;
  name: string | null;
  user_id: string;
  /** What it may do; null: everything its user may. */
  abilities: string[] | null;
  /** The enterprises it may act for; null: every enterprise of its user. */
  enterprise_ids: string[] | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

interface TokenRow {
  id: string;
  name: string | null;
  user_id: string;
  abilities: string[] | null;
  enterprise_ids: string[] | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
}

/** The enterprise's integration tokens: a member's, and able to act for it (unbound, or bound to it). */
const OF_ENTERPRISE = `t.kind = 'integration'
  AND EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = t.user_id AND m.enterprise_id = $1)
  AND (t.enterprise_ids IS NULL OR $1 = ANY (t.enterprise_ids))`;

const COLUMNS = `t.id, t.name, t.user_id, t.abilities, t.enterprise_ids::text[] AS enterprise_ids,
  t.created_at, t.last_used_at, t.expires_at`;

/** A page of the enterprise's integration tokens, newest first. */
export async function listEnterpriseTokens(
  db: SqlExecutor,
  enterpriseId: string,
  page: number,
): Promise<Page<EnterpriseTokenRecord>> {
  const { rows, total } = await selectPage<TokenRow>(
    db,
    {
      from: `FROM access_tokens t WHERE ${OF_ENTERPRISE}`,
      parameters: [enterpriseId],
      columns: COLUMNS,
      orderBy: newestFirst('t'),
    },
    pageRequest(page),
  );
  return { records: rows.map(presentToken), total };
}

/**
 * Revokes one of the enterprise's integration tokens, with its audit entries (in each enterprise
 * it could act for) in the same transaction. Unknown: 404; another enterprise's, or a login
 * token: 403.
 */
export async function revokeEnterpriseToken(
  db: SqlExecutor,
  enterpriseId: string,
  id: string,
  actor: AuditActor,
): Promise<void> {
  const [row] = await selectRows<{ user_id: string; enterprise_ids: string[] | null; ours: boolean }>(
    db,
    `SELECT t.user_id, t.enterprise_ids::text[] AS enterprise_ids, (${OF_ENTERPRISE}) AS ours
       FROM access_tokens t WHERE t.id = $2 FOR UPDATE`,
    [enterpriseId, id],
  );
  if (!row) throw new RecordNotFoundException(TOKEN_MODEL, id);
  if (!row.ours) throw new ForbiddenException({ message: ErrorMessages.forbidden });
  await recordAuditForMember(db, row.user_id, row.enterprise_ids, actor, {
    action: 'token.revoked',
    targetType: 'token',
    targetId: id,
    details: { user_id: row.user_id },
  });
  await db.query(`DELETE FROM access_tokens WHERE id = $1`, [id]);
}

function presentToken(row: TokenRow): EnterpriseTokenRecord {
  return {
    id: row.id,
    name: row.name,
    user_id: row.user_id,
    abilities: row.abilities,
    enterprise_ids: row.enterprise_ids,
    created_at: isoTimestamp(row.created_at),
    last_used_at: row.last_used_at === null ? null : isoTimestamp(row.last_used_at),
    expires_at: row.expires_at === null ? null : isoTimestamp(row.expires_at),
  };
}
