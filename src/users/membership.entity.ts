import { Entity, PrimaryColumn } from 'typeorm';
import { TimestampColumn } from '../database/columns.js';

@Entity('memberships')
export class Membership {
  @PrimaryColumn('uuid') userId!: string;
  @PrimaryColumn('uuid') enterpriseId!: string;
  @TimestampColumn() createdAt!: Date;
}
