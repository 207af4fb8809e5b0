import { Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../../database/columns.js';
import { Enterprise } from '../../enterprises/enterprise.entity.js';

@Entity('people')
@Index('people_enterprise_newest_idx', ['enterpriseId', 'createdAt', 'id'])
/** The target of the composite references of the rows it owns. */
@Unique(['enterpriseId', 'id'])
export class Person {
  @PrimaryGeneratedColumn('uuid') id!: string;
  /** NO_ENTERPRISE for a record of no enterprise (src/database/no-enterprise.ts). */
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @VarcharColumn({ nullable: true }) title!: string | null;
  /** AES-256-GCM with APP_KEY; see FieldCipher. */
  @Column('text', { nullable: true }) firstNameEncrypted!: string | null;
  @VarcharColumn({ nullable: true }) middleName!: string | null;
  @VarcharColumn({ nullable: true }) lastName!: string | null;
  @VarcharColumn({ nullable: true }) salutation!: string | null;
  @VarcharColumn({ nullable: true }) maidenName!: string | null;
  @Column('date', { nullable: true }) birthday!: string | null;
  @VarcharColumn({ nullable: true }) gender!: string | null;
  @VarcharColumn({ nullable: true }) licence!: string | null;
  @VarcharColumn({ nullable: true }) licenceCard!: string | null;
  @VarcharColumn({ nullable: true }) licenceState!: string | null;
  @Column('date', { nullable: true }) licenceExpiry!: string | null;
  @Column('integer', { nullable: true }) dependents!: number | null;
  @VarcharColumn({ nullable: true }) dependentsAges!: string | null;
  @VarcharColumn({ nullable: true }) maritalStatus!: string | null;
  @VarcharColumn({ nullable: true }) residencyStatus!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
