import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { poolReader } from '../../database/pool-reader.js';
import { newSecret, sha256Hex } from './access-token.js';
import type { AuthenticatedUser } from './authenticated-user.js';
import { findTokenUser } from './token-lookup.js';

/** Issues and resolves bearer tokens; only their SHA-256 is stored (R12). */
@Injectable()
export class TokenService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async issue(userId: string): Promise<string> {
    const id = randomUUID();
    const secret = newSecret();
    await this.dataSource.query(`INSERT INTO access_tokens (id, user_id, token_sha256) VALUES ($1, $2, $3)`, [
      id,
      userId,
      sha256Hex(secret),
    ]);
    return `${id}|${secret}`;
  }

  /** The active user a token belongs to, or undefined (unknown, malformed, revoked, inactive). */
  resolve(plaintext: string): Promise<AuthenticatedUser | undefined> {
    return findTokenUser(poolReader(this.dataSource), plaintext);
  }
}
