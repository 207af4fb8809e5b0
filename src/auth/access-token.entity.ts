import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn } from 'typeorm';
import { RecordTimestampColumn, TimestampColumn, VarcharColumn } from '../database/columns.js';
import { User } from '../users/user.entity.js';

/** What issued a token: a login through the API, or an operator for an integration (CLI). */
export type TokenKind = 'login' | 'integration';

/** Only the SHA-256 of the secret part is stored. */
@Entity('access_tokens')
@Check('access_tokens_kind_check', `kind IN ('login', 'integration')`)
export class AccessToken {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid')
  @ForeignKey(() => User, { onDelete: 'CASCADE' })
  @Index('access_tokens_user_idx')
  userId!: string;
  @Column({ type: 'char', length: 64, name: 'token_sha256' }) tokenSha256!: string;
  @Column({ type: 'varchar', length: 16, default: 'login' }) kind!: TokenKind;
  /** The operator's name for an integration token; null for login tokens. */
  @VarcharColumn({ nullable: true }) name!: string | null;
  /** Written at most once a minute per token. */
  @TimestampColumn({ nullable: true }) lastUsedAt!: Date | null;
  /** A fixed end (integration tokens); login tokens follow TOKEN_LIFETIME_MINUTES instead. */
  @TimestampColumn({ nullable: true }) expiresAt!: Date | null;
  /** What the token may do (`read`, `leads:write`, ...); null: everything its user may (login tokens, and tokens issued without). */
  @Column({ type: 'text', array: true, nullable: true }) abilities!: string[] | null;
  /** The enterprises it may act for; null: every enterprise of its user. */
  @Column({ type: 'uuid', array: true, nullable: true }) enterpriseIds!: string[] | null;
  @RecordTimestampColumn() createdAt!: Date;
}
