import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

@Entity('applications')
@Index('applications_enterprise_newest_idx', ['enterpriseId', 'createdAt', 'id'])
/** The target of the quotes' (application_id, enterprise_id) foreign key. */
@Unique(['id', 'enterpriseId'])
export class Application {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @Column('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @Column('date', { nullable: true }) settlementDateActual!: string | null;
  @VarcharColumn({ nullable: true }) contractNumber!: string | null;
  @VarcharColumn({ nullable: true }) sourceOfBusiness!: string | null;
  @VarcharColumn({ nullable: true }) crmDealId!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
