import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { FlagColumn, RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

@Entity('organisations')
@Index('organisations_enterprise_newest_idx', ['enterpriseId', 'createdAt', 'id'])
@Check('organisations_gst_registered_check', 'gst_registered IN (0, 1)')
/** The target of the composite references of the rows it owns. */
@Unique(['enterpriseId', 'id'])
export class Organisation {
  @PrimaryGeneratedColumn('uuid') id!: string;
  /** NO_ENTERPRISE for a record of no enterprise (src/database/no-enterprise.ts). */
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @VarcharColumn() legalName!: string;
  @VarcharColumn({ nullable: true }) legalStructure!: string | null;
  @VarcharColumn({ nullable: true }) shortName!: string | null;
  @VarcharColumn({ nullable: true }) trustName!: string | null;
  @VarcharColumn({ nullable: true }) acn!: string | null;
  @VarcharColumn({ nullable: true }) abn!: string | null;
  @VarcharColumn({ nullable: true }) entityType!: string | null;
  @Column('date', { nullable: true }) abnRegistration!: string | null;
  @VarcharColumn({ nullable: true }) abnStatus!: string | null;
  @FlagColumn(0) gstRegistered!: boolean;
  @Column('date', { nullable: true }) gstDate!: string | null;
  @VarcharColumn({ nullable: true }) businessName!: string | null;
  @VarcharColumn({ nullable: true }) businessName2!: string | null;
  @VarcharColumn({ nullable: true }) businessName3!: string | null;
  @VarcharColumn({ nullable: true }) formerName!: string | null;
  @VarcharColumn({ nullable: true }) formerName2!: string | null;
  @VarcharColumn({ nullable: true }) formerName3!: string | null;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('date', { nullable: true }) establishedDate!: string | null;
  @Column('integer', { nullable: true }) employeesCount!: number | null;
  @VarcharColumn({ nullable: true }) industry!: string | null;
  @VarcharColumn({ length: 2048, nullable: true }) website!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
