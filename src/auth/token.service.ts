import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { RepeatedWarnings } from '../logging/repeated-warnings.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { PoolReader } from '../database/pool-reader.js';
import { newSecret, sha256Hex } from './access-token.js';
import type { AuthenticatedUser } from '../common/access/authenticated-user.js';
import { findTokenUser } from './token-lookup.js';

/** Issues, resolves and revokes bearer tokens; only their SHA-256 is stored. */
@Injectable()
export class TokenService implements BeforeApplicationShutdown {
  private readonly warnings = new RepeatedWarnings(new Logger(TokenService.name));
  /** `last_used_at` writes under way, awaited before the pool closes. */
  private readonly touches = new Set<Promise<void>>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly reader: PoolReader,
  ) {}

  /** A login token. Issuing it counts as its first use: its `last_used_at` is now. */
  async issue(userId: string): Promise<string> {
    const id = randomUUID();
    const secret = newSecret();
    await this.dataSource.query(
      `INSERT INTO access_tokens (id, user_id, token_sha256, last_used_at) VALUES ($1, $2, $3, now())`,
      [id, userId, sha256Hex(secret)],
    );
    return `${id}|${secret}`;
  }

  /**
   * The active user a token belongs to, or undefined (unknown, malformed, revoked, expired,
   * inactive), and whether it belongs to `enterpriseId` when one is given. At most once a minute per token, `last_used_at` is written after the answer is
   * on its way, not before: the read stays one query.
   */
  async resolve(plaintext: string, enterpriseId?: string): Promise<AuthenticatedUser | undefined> {
    const match = await findTokenUser(this.reader, plaintext, this.config.tokenLifetimeMinutes, enterpriseId);
    if (!match) return undefined;
    if (match.touchDue) this.touch(match.user.tokenId);
    return match.user;
  }

  /** Deletes one token: it answers 401 from now on, on every instance (the database decides). */
  async revoke(tokenId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM access_tokens WHERE id = $1`, [tokenId]);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.touches);
  }

  private touch(tokenId: string): void {
    // Conditional, so instances that saw the same stale value write once between them.
    const write = this.reader
      .query(
        `UPDATE access_tokens SET last_used_at = now()
          WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - interval '1 minute')`,
        [tokenId],
      )
      .then(
        () => undefined,
        (error: unknown) => this.warnings.warn('last_used_at of a token could not be written', error),
      );
    this.touches.add(write);
    void write.finally(() => this.touches.delete(write));
  }
}
