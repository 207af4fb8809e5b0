import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { FlagColumn, RecordTimestampColumn, VarcharColumn } from '../database/columns.js';

@Entity('users')
@Check('users_is_active_check', 'is_active IN (0, 1)')
export class User {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @VarcharColumn() name!: string;
  /** Unique without regard to case: a unique index on lower(email), which TypeORM cannot describe. */
  @VarcharColumn()
  @Index('users_email_lower_key', { synchronize: false })
  email!: string;
  @Column('text') passwordHash!: string;
  @FlagColumn(1) isActive!: boolean;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
