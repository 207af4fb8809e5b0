import { Check, Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { ONE_OWNER, OwnedByPersonOrOrganisation, SameEnterpriseAsOwner } from './contact-owner.js';

@Entity('addresses')
@Check('addresses_one_owner', ONE_OWNER)
@Index('addresses_person_idx', ['personId', 'createdAt', 'id'], { where: 'person_id IS NOT NULL' })
@Index('addresses_organisation_idx', ['organisationId', 'createdAt', 'id'], { where: 'organisation_id IS NOT NULL' })
@SameEnterpriseAsOwner()
export class Address extends OwnedByPersonOrOrganisation {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @VarcharColumn({ nullable: true }) type!: string | null;
  /** The single composed line (lines, suburb, state, postcode). */
  @Column('text', { nullable: true }) address!: string | null;
  @VarcharColumn({ nullable: true }) line1!: string | null;
  @VarcharColumn({ nullable: true }) line2!: string | null;
  @VarcharColumn({ nullable: true }) line3!: string | null;
  @VarcharColumn({ nullable: true }) suburb!: string | null;
  @VarcharColumn({ nullable: true }) state!: string | null;
  @VarcharColumn({ length: 32, nullable: true }) postcode!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
