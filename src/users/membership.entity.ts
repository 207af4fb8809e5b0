import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import { RecordTimestampColumn } from '../database/columns.js';
import { NO_ENTERPRISE } from '../database/no-enterprise.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';
import { User } from './user.entity.js';

/** The roles a membership may have (the check below and the CLI's `--role`). */
export const MEMBER_ROLES: readonly EnterpriseRole[] = ['admin', 'member'];

@Entity('memberships')
@Check('memberships_role_check', `role IN ('admin', 'member')`)
@Check('memberships_not_the_reserved_enterprise', `enterprise_id <> '${NO_ENTERPRISE}'::uuid`)
@Index('memberships_enterprise_idx', ['enterpriseId', 'userId'])
export class Membership {
  @PrimaryColumn('uuid')
  @ForeignKey(() => User, { onDelete: 'CASCADE' })
  userId!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @Column({ type: 'varchar', length: 16, default: 'admin' }) role!: EnterpriseRole;
  @RecordTimestampColumn() createdAt!: Date;
}
