import { Entity, PrimaryColumn, Column } from 'typeorm';
import { FlagColumn, TimestampColumn } from '../database/columns.js';

/** A finance scenario; its calculation fields feed the application's derived fields (R6). */
@Entity('quotes')
export class Quote {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column('uuid', { nullable: true }) applicationId!: string | null;
  @FlagColumn() isActive!: boolean;
  @Column('varchar', { nullable: true }) assetType!: string | null;
  @Column('text', { nullable: true }) assetDescription!: string | null;
  @Column('varchar', { nullable: true }) financier!: string | null;
  @Column('numeric', { precision: 14, scale: 2, nullable: true }) totalFinanceAmount!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
