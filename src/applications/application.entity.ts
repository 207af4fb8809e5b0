import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

@Entity('applications')
@Index('applications_enterprise_newest_idx', ['enterpriseId', 'createdAt', 'id'])
export class Application {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @Column('date', { nullable: true }) settlementDateActual!: string | null;
  @VarcharColumn({ nullable: true }) contractNumber!: string | null;
  @VarcharColumn({ nullable: true }) sourceOfBusiness!: string | null;
  @VarcharColumn({ nullable: true }) crmDealId!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
