import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../../../database/columns.js';

/** What issued a token: a login through the API, or an operator for an integration (CLI). */
export type TokenKind = 'login' | 'integration';

/** Only the SHA-256 of the secret part is stored (R12). */
@Entity('access_tokens')
export class AccessToken {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') userId!: string;
  @Column({ type: 'char', length: 64, name: 'token_sha256' }) tokenSha256!: string;
  @Column({ type: 'varchar', length: 16, default: 'login' }) kind!: TokenKind;
  /** The operator's name for an integration token; null for login tokens. */
  @Column({ type: 'varchar', length: 255, nullable: true }) name!: string | null;
  /** Written at most once a minute per token. */
  @TimestampColumn({ nullable: true }) lastUsedAt!: Date | null;
  /** A fixed end (integration tokens); login tokens follow TOKEN_LIFETIME_MINUTES instead. */
  @TimestampColumn({ nullable: true }) expiresAt!: Date | null;
  @TimestampColumn() createdAt!: Date;
}
