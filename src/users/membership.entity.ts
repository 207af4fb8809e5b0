import { Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';
import { User } from './user.entity.js';

@Entity('memberships')
@Index('memberships_enterprise_idx', ['enterpriseId', 'userId'])
export class Membership {
  @PrimaryColumn('uuid')
  @ForeignKey(() => User, { onDelete: 'CASCADE' })
  userId!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @RecordTimestampColumn() createdAt!: Date;
}
