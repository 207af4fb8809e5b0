import { Entity, PrimaryColumn, Column } from 'typeorm';
import { FlagColumn, TimestampColumn } from '../database/columns.js';

@Entity('organisations')
export class Organisation {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { nullable: true }) enterpriseId!: string | null;
  @Column('varchar') legalName!: string;
  @Column('varchar', { nullable: true }) legalStructure!: string | null;
  @Column('varchar', { nullable: true }) shortName!: string | null;
  @Column('varchar', { nullable: true }) trustName!: string | null;
  @Column('varchar', { nullable: true }) acn!: string | null;
  @Column('varchar', { nullable: true }) abn!: string | null;
  @Column('varchar', { nullable: true }) entityType!: string | null;
  @Column('date', { nullable: true }) abnRegistration!: string | null;
  @Column('varchar', { nullable: true }) abnStatus!: string | null;
  @FlagColumn() gstRegistered!: boolean;
  @Column('date', { nullable: true }) gstDate!: string | null;
  @Column('varchar', { nullable: true }) businessName!: string | null;
  @Column('varchar', { nullable: true }) businessName2!: string | null;
  @Column('varchar', { nullable: true }) businessName3!: string | null;
  @Column('varchar', { nullable: true }) formerName!: string | null;
  @Column('varchar', { nullable: true }) formerName2!: string | null;
  @Column('varchar', { nullable: true }) formerName3!: string | null;
  @Column('text', { nullable: true }) description!: string | null;
  @Column('date', { nullable: true }) establishedDate!: string | null;
  @Column('integer', { nullable: true }) employeesCount!: number | null;
  @Column('varchar', { nullable: true }) industry!: string | null;
  @Column('varchar', { nullable: true }) website!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
