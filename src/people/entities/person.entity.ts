import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../../database/columns.js';

@Entity('people')
export class Person {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid', { nullable: true }) enterpriseId!: string | null;
  @Column('varchar', { nullable: true }) title!: string | null;
  /** AES-256-GCM with APP_KEY (R23); see FieldCipher. */
  @Column('text', { nullable: true }) firstNameEncrypted!: string | null;
  @Column('varchar', { nullable: true }) middleName!: string | null;
  @Column('varchar', { nullable: true }) lastName!: string | null;
  @Column('varchar', { nullable: true }) salutation!: string | null;
  @Column('varchar', { nullable: true }) maidenName!: string | null;
  @Column('date', { nullable: true }) birthday!: string | null;
  @Column('varchar', { nullable: true }) gender!: string | null;
  @Column('varchar', { nullable: true }) licence!: string | null;
  @Column('varchar', { nullable: true }) licenceCard!: string | null;
  @Column('varchar', { nullable: true }) licenceState!: string | null;
  @Column('date', { nullable: true }) licenceExpiry!: string | null;
  @Column('integer', { nullable: true }) dependents!: number | null;
  @Column('varchar', { nullable: true }) dependentsAges!: string | null;
  @Column('varchar', { nullable: true }) maritalStatus!: string | null;
  @Column('varchar', { nullable: true }) residencyStatus!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
