import { Entity, PrimaryColumn, Column } from 'typeorm';
import { FlagColumn, TimestampColumn } from '../../database/columns.js';
import { OwnedByPersonOrOrganisation } from './contact-owner.js';

@Entity('phone_numbers')
export class PhoneNumber extends OwnedByPersonOrOrganisation {
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar') type!: string;
  @Column('varchar') number!: string;
  @FlagColumn() isPrimary!: boolean;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
