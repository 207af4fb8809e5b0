import { Entity, PrimaryColumn, Column } from 'typeorm';
import { FlagColumn, TimestampColumn } from '../database/columns.js';

@Entity('users')
export class User {
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar') name!: string;
  @Column('varchar') email!: string;
  @Column('text') passwordHash!: string;
  @FlagColumn() isActive!: boolean;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
