import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../../database/columns.js';
import { OwnedByPersonOrOrganisation } from './contact-owner.js';

@Entity('addresses')
export class Address extends OwnedByPersonOrOrganisation {
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar', { nullable: true }) type!: string | null;
  /** The single composed line (lines, suburb, state, postcode). */
  @Column('text', { nullable: true }) address!: string | null;
  @Column('varchar', { nullable: true }) line1!: string | null;
  @Column('varchar', { nullable: true }) line2!: string | null;
  @Column('varchar', { nullable: true }) line3!: string | null;
  @Column('varchar', { nullable: true }) suburb!: string | null;
  @Column('varchar', { nullable: true }) state!: string | null;
  @Column('varchar', { nullable: true }) postcode!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
