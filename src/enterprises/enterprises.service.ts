import { ForbiddenException, Injectable } from '@nestjs/common';
import { ErrorMessages } from '../common/http/error-messages.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { PoolReader } from '../database/pool-reader.js';
import { realEnterprise } from '../database/no-enterprise.js';
import { selectRows, type SqlExecutor } from '../database/sql.js';
import { presentEnterprise, type EnterpriseRecord, type EnterpriseRow } from './enterprise.presenter.js';

const COLUMNS = 'e.id, e.name, e.is_active, e.created_at, e.updated_at';

/** An enterprise by id, and whether the user is one of its members; undefined when there is none. */
export async function findEnterpriseForUser(
  db: SqlExecutor,
  id: string,
  userId: string,
): Promise<(EnterpriseRow & { member: boolean }) | undefined> {
  const [row] = await selectRows<EnterpriseRow & { member: boolean }>(
    db,
    `SELECT ${COLUMNS}, EXISTS (SELECT 1 FROM memberships m WHERE m.enterprise_id = e.id AND m.user_id = $2) AS member
       FROM enterprises e WHERE e.id = $1 AND ${realEnterprise('e')}`,
    [id, userId],
  );
  return row;
}

@Injectable()
export class EnterprisesService {
  /** The request path's reader: named statements, planned once per connection. */
  constructor(private readonly db: PoolReader) {}

  /** The enterprises the user belongs to, newest first (unpaginated). */
  async listForUser(userId: string): Promise<EnterpriseRecord[]> {
    const rows = await selectRows<EnterpriseRow>(
      this.db,
      `SELECT ${COLUMNS} FROM enterprises e JOIN memberships m ON m.enterprise_id = e.id
        WHERE m.user_id = $1 ORDER BY e.created_at DESC, e.id DESC`,
      [userId],
    );
    return rows.map(presentEnterprise);
  }

  /** 404 when there is no such enterprise, 403 when the user is not a member. */
  async getForUser(id: string, userId: string): Promise<EnterpriseRecord> {
    const row = await findEnterpriseForUser(this.db, id, userId);
    if (!row) throw new RecordNotFoundException('Enterprise', id);
    if (!row.member) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    return presentEnterprise(row);
  }
}
