import { ForbiddenException, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ErrorMessages } from '../common/http/error-messages.js';
import { RecordNotFoundException } from '../common/http/record-not-found.exception.js';
import { selectRows } from '../database/sql.js';
import { presentUser, USER_COLUMNS, type UserRecord, type UserRow } from './user.presenter.js';

@Injectable()
export class UsersService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Members of the enterprise, newest first (R8: unpaginated). */
  async listForEnterprise(enterpriseId: string): Promise<UserRecord[]> {
    const rows = await selectRows<UserRow>(
      this.dataSource,
      `SELECT ${USER_COLUMNS} FROM users u JOIN memberships m ON m.user_id = u.id
        WHERE m.enterprise_id = $1 ORDER BY u.created_at DESC, u.id DESC`,
      [enterpriseId],
    );
    return rows.map(presentUser);
  }

  /**
   * 404 when no such user; 403 when `mustBelong` and the user is not a member of the
   * enterprise (v2 always, v1 unless V1_LEGACY_USER_LOOKUP, R14).
   */
  async get(id: string, enterpriseId: string, mustBelong: boolean): Promise<UserRecord> {
    const [row] = await selectRows<UserRow & { member: boolean }>(
      this.dataSource,
      `SELECT ${USER_COLUMNS}, EXISTS (SELECT 1 FROM memberships m WHERE m.user_id = u.id AND m.enterprise_id = $2) AS member
         FROM users u WHERE u.id = $1`,
      [id, enterpriseId],
    );
    if (!row) throw new RecordNotFoundException('User', id);
    if (mustBelong && !row.member) throw new ForbiddenException({ message: ErrorMessages.forbidden });
    return presentUser(row);
  }
}
