import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../../../database/columns.js';

/** Only the SHA-256 of the secret part is stored (R12). */
@Entity('access_tokens')
export class AccessToken {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') userId!: string;
  @Column({ type: 'char', length: 64, name: 'token_sha256' }) tokenSha256!: string;
  @TimestampColumn() createdAt!: Date;
}
