import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { affectedRows, selectRows, type SqlExecutor } from '../database/sql.js';
import { AccountError } from '../users/user-accounts.js';
import { isUuid } from '../database/uuid.js';
import { newSecret, sha256Hex } from './access-token.js';
import type { TokenKind } from './access-token.entity.js';
import { TOKEN_ABILITIES } from './token-abilities.js';
import { CLI_ACTOR, recordAuditForMember } from '../audit/audit-trail.js';

/** The abilities, each a known one, without repeats, in TOKEN_ABILITIES's order. */
function checkedAbilities(abilities: readonly string[]): string[] {
  const wanted = new Set(abilities.map((ability) => ability.trim()));
  const unknown = [...wanted].find((ability) => !TOKEN_ABILITIES.includes(ability));
  if (unknown !== undefined || wanted.size === 0) {
    throw new AccountError(
      `${unknown === undefined ? '--abilities needs at least one ability' : `Unknown ability ${unknown}`}; ` +
        `the abilities are: ${TOKEN_ABILITIES.join(', ')}.`,
    );
  }
  return TOKEN_ABILITIES.filter((ability) => wanted.has(ability));
}

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
  /** What it may do; null: everything its user may. */
  abilities: string[] | null;
  /** The enterprises it may act for; null: every enterprise of its user. */
  enterpriseIds: string[] | null;
}

export interface NewIntegrationToken {
  email: string;
  name: string;
  expiresInDays?: number;
  /** Limits it to these (of TOKEN_ABILITIES); absent: everything its user may. */
  abilities?: readonly string[];
  /** Binds it to these enterprises (each one of the user's); absent: every enterprise of its user. */
  enterpriseIds?: readonly string[];
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
    const abilities = input.abilities === undefined ? null : checkedAbilities(input.abilities);
    const user = await this.userByEmail(this.dataSource, input.email);
    if (!user.active) {
      throw new AccountError(`The user ${input.email} is inactive: run user:activate first.`);
    }
    const enterpriseIds =
      input.enterpriseIds === undefined
        ? null
        : await this.checkedEnterprises(user.id, input.email, input.enterpriseIds);
    const id = randomUUID();
    const secret = newSecret();
    await this.dataSource.transaction(async (db) => {
      await db.query(
        `INSERT INTO access_tokens (id, user_id, token_sha256, kind, name, expires_at, abilities, enterprise_ids)
         VALUES ($1, $2, $3, 'integration', $4, CASE WHEN $5::integer IS NULL THEN NULL ELSE now() + make_interval(days => $5::integer) END,
                 $6::text[], $7::uuid[])`,
        [id, user.id, sha256Hex(secret), name, days ?? null, abilities, enterpriseIds],
      );
      // In each enterprise it may act for; never the token itself.
      await recordAuditForMember(db, user.id, enterpriseIds, CLI_ACTOR, {
        action: 'token.issued',
        targetType: 'token',
        targetId: id,
        details: { user_id: user.id, name, abilities: abilities ?? 'all', expires_in_days: days ?? null },
      });
    });
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
      abilities: string[] | null;
      enterprise_ids: string[] | null;
    }>(
      this.dataSource,
      `SELECT id, kind, name, created_at, last_used_at, abilities, enterprise_ids::text[] AS enterprise_ids,
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
      abilities: row.abilities,
      enterpriseIds: row.enterprise_ids,
    }));
  }

  /** Deletes one token by id; an unknown id is an operator error. */
  async revoke(id: string): Promise<void> {
    await this.dataSource.transaction(async (db) => {
      const [deleted] = isUuid(id)
        ? await selectRows<{ user_id: string; enterprise_ids: string[] | null }>(
            db,
            `SELECT user_id, enterprise_ids::text[] AS enterprise_ids FROM access_tokens WHERE id = $1 FOR UPDATE`,
            [id.toLowerCase()],
          )
        : [];
      if (!deleted) throw new AccountError(`No token has the id ${id}.`);
      await db.query(`DELETE FROM access_tokens WHERE id = $1`, [id.toLowerCase()]);
      await recordAuditForMember(db, deleted.user_id, deleted.enterprise_ids, CLI_ACTOR, {
        action: 'token.revoked',
        targetType: 'token',
        targetId: id.toLowerCase(),
        details: { user_id: deleted.user_id },
      });
    });
  }

  /** Deletes every token of the user; returns how many there were. */
  async revokeAll(email: string): Promise<number> {
    const user = await this.userByEmail(this.dataSource, email);
    return this.dataSource.transaction(async (db) => {
      const count = await affectedRows(db, `DELETE FROM access_tokens WHERE user_id = $1`, [user.id]);
      await recordAuditForMember(db, user.id, null, CLI_ACTOR, {
        action: 'token.revoked',
        targetType: 'token',
        targetId: null,
        details: { user_id: user.id, all: true, count },
      });
      return count;
    });
  }

  /** The enterprises, each a UUID of one the user belongs to, lower-cased and without repeats. */
  private async checkedEnterprises(userId: string, email: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) throw new AccountError('--enterprise needs at least one enterprise id.');
    const wanted = [...new Set(ids.map((id) => id.trim().toLowerCase()))];
    const notUuid = wanted.find((id) => !isUuid(id));
    if (notUuid !== undefined) throw new AccountError(`No enterprise has the id ${notUuid}.`);
    const rows = await selectRows<{ enterprise_id: string }>(
      this.dataSource,
      `SELECT enterprise_id::text AS enterprise_id FROM memberships WHERE user_id = $1 AND enterprise_id = ANY($2::uuid[])`,
      [userId, wanted],
    );
    const member = new Set(rows.map((row) => row.enterprise_id));
    const outside = wanted.find((id) => !member.has(id));
    if (outside !== undefined)
      throw new AccountError(`The user ${email} is not a member of the enterprise ${outside}.`);
    return wanted;
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
