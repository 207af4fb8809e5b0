import { Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

/** A JSON scalar as stored in the mixed-typed lead columns. */
export type MixedValue = string | number | boolean | null;

@Entity('leads')
/** The list order (created_at and id descending in the index; TypeORM cannot say so). */
@Index('leads_enterprise_newest_idx', ['enterpriseId', 'createdAt', 'id'])
export class Lead {
  @PrimaryGeneratedColumn('uuid') id!: string;
  /** NO_ENTERPRISE for a record of no enterprise (src/database/no-enterprise.ts). */
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @VarcharColumn() title!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @VarcharColumn({ nullable: true }) personName!: string | null;
  @VarcharColumn({ nullable: true }) organisationName!: string | null;
  @Column('jsonb', { nullable: true }) personId!: MixedValue;
  @Column('jsonb', { nullable: true }) organisationId!: MixedValue;
  @Column('jsonb', { nullable: true }) hasAbn!: MixedValue;
  @Column('text', { nullable: true }) abn!: string | null;
  @Column('jsonb', { nullable: true }) userAssignedId!: MixedValue;
  @Column('text', { nullable: true }) use!: string | null;
  @Column('text', { nullable: true }) assetDescription!: string | null;
  @Column('jsonb', { nullable: true }) purchasePrice!: MixedValue;
  @Column('jsonb', { nullable: true }) deposit!: MixedValue;
  @Column('jsonb', { nullable: true }) tradeIn!: MixedValue;
  @Column('jsonb', { nullable: true }) financeAmount!: MixedValue;
  @Column('jsonb', { nullable: true }) residual!: MixedValue;
  @Column('jsonb', { nullable: true }) financeTerm!: MixedValue;
  @Column('text', { nullable: true }) fundsRequiredWithin!: string | null;
  @Column('jsonb', { nullable: true }) realestateOwner!: MixedValue;
  @Column('jsonb', { nullable: true, name: 'finance_last_3_years' }) financeLast3Years!: MixedValue;
  @Column('jsonb', { nullable: true }) appliedAlready!: MixedValue;
  @Column('jsonb', { nullable: true }) brokerId!: MixedValue;
  @Column('text', { nullable: true }) phone!: string | null;
  @Column('text', { nullable: true }) phoneType!: string | null;
  @Column('text', { nullable: true }) email!: string | null;
  @Column('text', { nullable: true }) emailType!: string | null;
  @Column('text', { nullable: true }) source!: string | null;
  /** Body keys v1 accepts beyond its rule set, kept so nothing a client sends is lost. */
  @Column('jsonb', { default: {} }) extraInput!: Record<string, unknown>;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
