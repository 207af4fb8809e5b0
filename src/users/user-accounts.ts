import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import { affectedRows, selectRows } from '../database/sql.js';
import { CLI_ACTOR, recordAudit } from '../audit/audit-trail.js';
import { hashPassword } from '../auth/password-hasher.js';
import { realEnterprise } from '../database/no-enterprise.js';

export class AccountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccountError';
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface NewUser {
  email: string;
  name: string;
  password: string;
}

/** Operator actions on accounts (the API cannot create or change them). */
export class UserAccounts {
  constructor(private readonly dataSource: DataSource) {}

  async create(input: NewUser): Promise<string> {
    if (!EMAIL.test(input.email)) throw new AccountError('The email must be a valid email address.');
    if (input.password.length < 8) throw new AccountError('The password must be at least 8 characters.');
    const id = randomUUID();
    const hash = await hashPassword(input.password);
    const inserted: unknown[] = await this.dataSource.query(
      `INSERT INTO users (id, name, email, password_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING id`,
      [id, input.name, input.email, hash],
    );
    if (inserted.length === 0) throw new AccountError(`A user with the email ${input.email} exists already.`);
    return id;
  }

  /** Sets a new password and deletes all of the user's tokens. */
  async changePassword(email: string, password: string): Promise<void> {
    if (password.length < 8) throw new AccountError('The password must be at least 8 characters.');
    const hash = await hashPassword(password);
    await this.dataSource.transaction(async (manager) => {
      const userId = await this.userIdByEmail(manager, email);
      await manager.query(`UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1`, [userId, hash]);
      await manager.query(`DELETE FROM access_tokens WHERE user_id = $1`, [userId]);
    });
  }

  /**
   * Makes the user a member of the enterprise as `role`; without one, `admin` when the
   * enterprise has no member yet (its first user), else `member`. Already a member: unchanged.
   */
  async addMembership(email: string, enterpriseId: string, role?: EnterpriseRole): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const userId = await this.userIdByEmail(manager, email);
      await this.enterpriseMustExist(manager, enterpriseId);
      await manager.query(
        `INSERT INTO memberships (user_id, enterprise_id, role)
         VALUES ($1, $2, COALESCE($3::varchar,
           CASE WHEN EXISTS (SELECT 1 FROM memberships WHERE enterprise_id = $2) THEN 'member' ELSE 'admin' END))
         ON CONFLICT DO NOTHING`,
        [userId, enterpriseId, role ?? null],
      );
    });
  }

  /** Sets the user's role in an enterprise it belongs to. */
  async setRole(email: string, enterpriseId: string, role: EnterpriseRole): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const userId = await this.userIdByEmail(manager, email);
      await this.enterpriseMustExist(manager, enterpriseId);
      const changed = await affectedRows(
        manager,
        `UPDATE memberships SET role = $3 WHERE user_id = $1 AND enterprise_id = $2`,
        [userId, enterpriseId, role],
      );
      if (changed === 0) {
        throw new AccountError(
          `The user ${email} is not a member of the enterprise ${enterpriseId}: run member:add first.`,
        );
      }
      // A member who is no longer an admin: the endpoints they created keep delivering, and the trail says so.
      const [kept] = await selectRows<{ endpoints: number }>(
        manager,
        `SELECT count(*)::int AS endpoints FROM webhook_endpoints WHERE enterprise_id = $1 AND created_by = $2`,
        [enterpriseId, userId],
      );
      await recordAudit(manager, enterpriseId.toLowerCase(), CLI_ACTOR, {
        action: 'role.changed',
        targetType: 'membership',
        targetId: userId,
        details: role === 'member' ? { role, endpoints_kept: kept?.endpoints ?? 0 } : { role },
      });
    });
  }

  private async enterpriseMustExist(manager: EntityManager, enterpriseId: string): Promise<void> {
    const found: unknown[] = await manager.query(
      `SELECT 1 FROM enterprises e WHERE e.id::text = $1 AND ${realEnterprise('e')}`,
      [enterpriseId],
    );
    if (found.length === 0) throw new AccountError(`No enterprise has the id ${enterpriseId}.`);
  }

  private async userIdByEmail(manager: EntityManager, email: string): Promise<string> {
    const rows: { id: string }[] = await manager.query(`SELECT id FROM users WHERE lower(email) = lower($1)`, [email]);
    const row = rows[0];
    if (!row) throw new AccountError(`No user has the email ${email}.`);
    return row.id;
  }
}
