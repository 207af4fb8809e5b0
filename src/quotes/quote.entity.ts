import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, PrimaryColumn } from 'typeorm';
import { Application } from '../applications/application.entity.js';
import { FlagColumn, RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

/** A finance scenario; its calculation fields feed the application's derived fields. */
@Entity('quotes')
@Index('quotes_enterprise_newest_idx', ['enterpriseId', 'createdAt', 'id'])
@Index('quotes_active_by_application_idx', ['applicationId', 'createdAt', 'id'], { where: 'is_active = 1' })
@Check('quotes_is_active_check', 'is_active IN (0, 1)')
/** Keeps a quote and its application in one enterprise. */
@ForeignKey(() => Application, ['applicationId', 'enterpriseId'], ['id', 'enterpriseId'], { onDelete: 'CASCADE' })
export class Quote {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @Column('uuid', { nullable: true }) applicationId!: string | null;
  @FlagColumn(0) isActive!: boolean;
  @VarcharColumn({ nullable: true }) assetType!: string | null;
  @Column('text', { nullable: true }) assetDescription!: string | null;
  @VarcharColumn({ nullable: true }) financier!: string | null;
  @Column('numeric', { precision: 14, scale: 2, nullable: true }) totalFinanceAmount!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
