import { Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { verifyAgainstDummy, verifyPassword } from './password-hasher.js';
import { TokenService } from './token.service.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { selectRows } from '../database/sql.js';
import { presentUser, USER_COLUMNS, type UserRecord, type UserRow } from '../users/user.presenter.js';
import { recordAuditForMember, type AuditActor } from '../audit/audit-trail.js';
import { RepeatedWarnings } from '../logging/repeated-warnings.js';

export interface LoginResult {
  user: UserRecord;
  accessToken: string;
}

@Injectable()
export class LoginService {
  private readonly warnings = new RepeatedWarnings(new Logger(LoginService.name));

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: TokenService,
  ) {}

  /**
   * Wrong email, wrong password and inactive user all answer the same 401, and cost one
   * password verification each, so timing does not tell which. A failure for a known user goes
   * into the audit trail of each of their enterprises, after the answer is decided and without
   * waiting for it (the answer's timing must not tell a known email from an unknown one).
   */
  async login(email: string, password: string, actor: AuditActor): Promise<LoginResult> {
    const [row] = await selectRows<UserRow & { password_hash: string }>(
      this.dataSource,
      `SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE lower(u.email) = lower($1)`,
      [email],
    );
    const valid = row ? await verifyPassword(row.password_hash, password) : await verifyAgainstDummy(password);
    if (!row || !valid || row.is_active !== 1) {
      if (row) this.recordFailure(row.id, valid ? 'inactive' : 'password', actor);
      throw new UnauthorizedException({ message: ErrorMessages.invalidCredentials });
    }
    return { user: presentUser(row), accessToken: await this.tokens.issue(row.id) };
  }

  private recordFailure(userId: string, reason: 'password' | 'inactive', actor: AuditActor): void {
    recordAuditForMember(this.dataSource, userId, null, actor, {
      action: 'login.failed',
      targetType: 'user',
      targetId: userId,
      details: { reason },
    }).catch((error: unknown) => this.warnings.warn('A failed login could not be recorded in the audit trail', error));
  }
}
