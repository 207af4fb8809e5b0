import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';
import { User } from '../users/user.entity.js';

/** A remembered write: only the request's SHA-256 and the answer, kept 24 hours. */
@Entity('idempotency_keys')
export class IdempotencyKey {
  @PrimaryColumn('uuid')
  @ForeignKey(() => User, { onDelete: 'CASCADE' })
  userId!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @PrimaryColumn({ type: 'varchar', length: 255 }) key!: string;
  @Column({ type: 'char', length: 64, name: 'request_sha256' }) requestSha256!: string;
  @Column('json', { nullable: true }) responseBody!: unknown;
  /** The purge deletes by age. */
  @RecordTimestampColumn()
  @Index('idempotency_keys_created_idx')
  createdAt!: Date;
}
