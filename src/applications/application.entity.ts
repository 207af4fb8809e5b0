import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../database/columns.js';

@Entity('applications')
export class Application {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column('date', { nullable: true }) settlementDateActual!: string | null;
  @Column('varchar', { nullable: true }) contractNumber!: string | null;
  @Column('varchar', { nullable: true }) sourceOfBusiness!: string | null;
  @Column('varchar', { nullable: true }) crmDealId!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
