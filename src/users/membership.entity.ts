import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';
import { User } from './user.entity.js';

/** What a member may do in the enterprise: `admin` also manages its webhook endpoints. */
export type MemberRole = 'admin' | 'member';
export const MEMBER_ROLES: readonly MemberRole[] = ['admin', 'member'];

@Entity('memberships')
@Check('memberships_role_check', `role IN ('admin', 'member')`)
@Index('memberships_enterprise_idx', ['enterpriseId', 'userId'])
export class Membership {
  @PrimaryColumn('uuid')
  @ForeignKey(() => User, { onDelete: 'CASCADE' })
  userId!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @Column({ type: 'varchar', length: 16, default: 'admin' }) role!: MemberRole;
  @RecordTimestampColumn() createdAt!: Date;
}
