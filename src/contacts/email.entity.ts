import { Check, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { FlagColumn, RecordTimestampColumn, VarcharColumn } from '../database/columns.js';
import { ONE_OWNER, OwnedByPersonOrOrganisation, SameEnterpriseAsOwner } from './contact-owner.js';

@Entity('emails')
@Check('emails_one_owner', ONE_OWNER)
@Check('emails_is_primary_check', 'is_primary IN (0, 1)')
@Index('emails_person_idx', ['personId', 'createdAt', 'id'], { where: 'person_id IS NOT NULL' })
@Index('emails_organisation_idx', ['organisationId', 'createdAt', 'id'], { where: 'organisation_id IS NOT NULL' })
@SameEnterpriseAsOwner()
export class Email extends OwnedByPersonOrOrganisation {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @VarcharColumn() address!: string;
  @FlagColumn(0) isPrimary!: boolean;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
