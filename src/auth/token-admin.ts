import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { affectedRows, selectRows, type SqlExecutor } from '../database/sql.js';
import { AccountError } from '../users/user-accounts.js';
import { isUuid } from '../database/uuid.js';
import { newSecret, sha256Hex } from './access-token.js';
import type { TokenKind } from './access-token.entity.js';

/** Most days an integration token may be issued for (about ten years). */
export const MAX_TOKEN_DAYS = 3650;

/** A token as the operator sees it: never its secret or digest. */
export interface TokenListing {
  id: string;
  kind: TokenKind;
  name: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** Its own end (integration), or creation + TOKEN_LIFETIME_MINUTES (login); null: never. */
  expiresAt: Date | null;
}

export interface NewIntegrationToken {
  email: string;
  name: string;
  expiresInDays?: number;
}

/** Operator actions on tokens (CLI): issue integration tokens, list, revoke. */
export class TokenAdmin {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * A token for a system account, without sharing its password; it works like a login token
   * (same header, same checks) and is shown once. TOKEN_LIFETIME_MINUTES does not apply: it
   * ends at `expiresInDays` if given, else when revoked.
   */
  async issueIntegrationToken(input: NewIntegrationToken): Promise<string> {
    const name = input.name.trim();
    if (name === '' || [...name].length > 255) throw new AccountError('The name must be 1 to 255 characters.');
    const days = input.expiresInDays;
    if (days !== undefined && !(Number.isInteger(days) && days >= 1 && days <= MAX_TOKEN_DAYS)) {
      throw new AccountError(`--expires-in-days must be a whole number from 1 to ${MAX_TOKEN_DAYS}.`);
    }
    const user = await this.userByEmail(this.dataSource, input.email);
    if (!user.active) {
      throw new AccountError(`The user ${input.email} is inactive: run user:activate first.`);
    }
    const id = randomUUID();
    const secret = newSecret();
    await this.dataSource.query(
      `INSERT INTO access_tokens (id, user_id, token_sha256, kind, name, expires_at)
       VALUES ($1, $2, $3, 'integration', $4, CASE WHEN $5::integer IS NULL THEN NULL ELSE now() + make_interval(days => $5::integer) END)`,
      [id, user.id, sha256Hex(secret), name, days ?? null],
    );
    return `${id}|${secret}`;
  }

  /** The user's tokens, newest first. `loginLifetimeMinutes`: TOKEN_LIFETIME_MINUTES. */
  async list(email: string, loginLifetimeMinutes: number | undefined): Promise<TokenListing[]> {
    const user = await this.userByEmail(this.dataSource, email);
    const rows = await selectRows<{
      id: string;
      kind: TokenKind;
      name: string | null;
      created_at: Date;
      last_used_at: Date | null;
      expires_at: Date | null;
    }>(
      this.dataSource,
      `SELECT id, kind, name, created_at, last_used_at,
              CASE WHEN kind = 'login' AND $2::integer IS NOT NULL
                   THEN created_at + make_interval(mins => $2::integer) ELSE expires_at END AS expires_at
         FROM access_tokens WHERE user_id = $1 ORDER BY created_at DESC, id DESC`,
      [user.id, loginLifetimeMinutes ?? null],
    );
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      name: row.name,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      expiresAt: row.expires_at,
    }));
  }

  /** Deletes one token by id; an unknown id is an operator error. */
  async revoke(id: string): Promise<void> {
    const deleted = isUuid(id)
      ? await affectedRows(this.dataSource, `DELETE FROM access_tokens WHERE id = $1`, [id.toLowerCase()])
      : 0;
    if (deleted === 0) throw new AccountError(`No token has the id ${id}.`);
  }

  /** Deletes every token of the user; returns how many there were. */
  async revokeAll(email: string): Promise<number> {
    const user = await this.userByEmail(this.dataSource, email);
    return affectedRows(this.dataSource, `DELETE FROM access_tokens WHERE user_id = $1`, [user.id]);
  }

  private async userByEmail(db: SqlExecutor, email: string): Promise<{ id: string; active: boolean }> {
    const [row] = await selectRows<{ id: string; is_active: number }>(
      db,
      `SELECT id, is_active FROM users WHERE lower(email) = lower($1)`,
      [email],
    );
    if (!row) throw new AccountError(`No user has the email ${email}.`);
    return { id: row.id, active: row.is_active === 1 };
  }
}
