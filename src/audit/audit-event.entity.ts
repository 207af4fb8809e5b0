import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

/** Who did it: a user through the API, an operator through the CLI, or the service itself. */
export type AuditActorKind = 'user' | 'cli' | 'system';

/** One security-relevant action in an enterprise; never changed once written. */
@Entity('audit_events')
@Check('audit_events_actor_check', `actor IN ('user', 'cli', 'system')`)
@Index('audit_events_enterprise_occurred_idx', ['enterpriseId', 'occurredAt', 'id'])
@Index('audit_events_occurred_idx', ['occurredAt'])
export class AuditEvent {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @RecordTimestampColumn() occurredAt!: Date;
  @Column({ type: 'varchar', length: 16 }) actor!: AuditActorKind;
  @Column('uuid', { nullable: true }) actorUserId!: string | null;
  @Column('uuid', { nullable: true }) actorTokenId!: string | null;
  @Column({ type: 'varchar', length: 64 }) action!: string;
  @Column({ type: 'varchar', length: 32 }) targetType!: string;
  @VarcharColumn({ nullable: true }) targetId!: string | null;
  @Column('jsonb', { default: () => "'{}'" }) details!: Record<string, unknown>;
  @Column({ type: 'varchar', length: 64, nullable: true }) clientIp!: string | null;
  @Column({ type: 'varchar', length: 128, nullable: true }) requestId!: string | null;
}
