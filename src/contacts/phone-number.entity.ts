import { Check, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { FlagColumn, RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { ONE_OWNER, OwnedByPersonOrOrganisation, SameEnterpriseAsOwner } from './contact-owner.js';

@Entity('phone_numbers')
@Check('phone_numbers_one_owner', ONE_OWNER)
@Check('phone_numbers_is_primary_check', 'is_primary IN (0, 1)')
@Index('phone_numbers_person_idx', ['personId', 'createdAt', 'id'], { where: 'person_id IS NOT NULL' })
@Index('phone_numbers_organisation_idx', ['organisationId', 'createdAt', 'id'], {
  where: 'organisation_id IS NOT NULL',
})
@SameEnterpriseAsOwner()
export class PhoneNumber extends OwnedByPersonOrOrganisation {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @VarcharColumn() type!: string;
  @VarcharColumn() number!: string;
  @FlagColumn(0) isPrimary!: boolean;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
