import { Injectable, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { verifyAgainstDummy, verifyPassword } from './password-hasher.js';
import { TokenService } from './token.service.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { selectRows } from '../database/sql.js';
import { presentUser, USER_COLUMNS, type UserRecord, type UserRow } from '../users/user.presenter.js';

export interface LoginResult {
  user: UserRecord;
  accessToken: string;
}

@Injectable()
export class LoginService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: TokenService,
  ) {}

  /**
   * Wrong email, wrong password and inactive user all answer the same 401, and cost one
   * password verification each, so timing does not tell which.
   */
  async login(email: string, password: string): Promise<LoginResult> {
    const [row] = await selectRows<UserRow & { password_hash: string }>(
      this.dataSource,
      `SELECT ${USER_COLUMNS}, u.password_hash FROM users u WHERE lower(u.email) = lower($1)`,
      [email],
    );
    const valid = row ? await verifyPassword(row.password_hash, password) : await verifyAgainstDummy(password);
    if (!row || !valid || row.is_active !== 1) {
      throw new UnauthorizedException({ message: ErrorMessages.invalidCredentials });
    }
    return { user: presentUser(row), accessToken: await this.tokens.issue(row.id) };
  }
}
