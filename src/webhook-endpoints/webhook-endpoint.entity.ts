import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn, TimestampColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';
import { User } from '../users/user.entity.js';

/** An enterprise's webhook receiver, where its stream stands in the change log, and its lease. */
@Entity('webhook_endpoints')
@Index('webhook_endpoints_enterprise_created_idx', ['enterpriseId', 'createdAt', 'id'])
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @Column({ type: 'varchar', length: 2048 }) url!: string;
  /** Record types delivered; empty: every type. */
  @Column('text', { array: true }) types!: string[];
  @Column({ type: 'varchar', length: 1000, nullable: true }) description!: string | null;
  @Column('boolean', { default: true }) enabled!: boolean;
  @Column({ type: 'varchar', length: 255, nullable: true }) disabledReason!: string | null;
  /** `whsec_...`, encrypted with APP_KEY. */
  @Column('text') secretEncrypted!: string;
  /** The secret before the last rotation, still signing until `previousSecretExpiresAt`. */
  @Column('text', { nullable: true }) previousSecretEncrypted!: string | null;
  @TimestampColumn({ nullable: true }) previousSecretExpiresAt!: Date | null;
  /** The feed position delivered up to (a transaction id and a sequence number). */
  @Column('bigint') cursorXid!: string;
  @Column('bigint', { default: 0 }) cursorSeq!: string;
  /** Counts replays: part of every webhook id, so a replayed entry is a new message. */
  @Column('integer', { default: 0 }) generation!: number;
  /** Failed attempts since the last success. */
  @Column('integer', { default: 0 }) failures!: number;
  @TimestampColumn({ nullable: true }) failingSince!: Date | null;
  @TimestampColumn({ nullable: true }) nextAttemptAt!: Date | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) leaseOwner!: string | null;
  @TimestampColumn({ nullable: true }) leaseExpiresAt!: Date | null;
  /** The user who created it (null: before this was recorded, or that user was removed); the enterprise owns it. */
  @Column('uuid', { nullable: true })
  @ForeignKey(() => User, { onDelete: 'SET NULL' })
  createdBy!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
