import { Entity, PrimaryColumn, Column } from 'typeorm';
import { FlagColumn, TimestampColumn } from '../../database/columns.js';
import { OwnedByPersonOrOrganisation } from './contact-owner.js';

@Entity('emails')
export class Email extends OwnedByPersonOrOrganisation {
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar') address!: string;
  @FlagColumn() isPrimary!: boolean;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
