import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../database/columns.js';

/** A JSON scalar as stored in the mixed-typed lead columns (R16). */
export type MixedValue = string | number | boolean | null;

@Entity('leads')
export class Lead {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { nullable: true }) enterpriseId!: string | null;
  @Column('varchar') title!: string;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('varchar', { nullable: true }) personName!: string | null;
  @Column('varchar', { nullable: true }) organisationName!: string | null;
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
  /** Body keys v1 accepts beyond its rule set, kept so nothing a client sends is lost (R16). */
  @Column('jsonb') extraInput!: Record<string, unknown>;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
