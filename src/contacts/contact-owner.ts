import { Column, ForeignKey } from 'typeorm';
import { Organisation } from '../organisations/organisation.entity.js';
import { Person } from '../people/entities/person.entity.js';

/**
 * Phone numbers, emails and addresses belong to exactly one person or organisation (each
 * table's `<table>_one_owner` CHECK, declared on its entity).
 */
export abstract class OwnedByPersonOrOrganisation {
  @Column('uuid', { nullable: true })
  @ForeignKey(() => Person, { onDelete: 'CASCADE' })
  personId!: string | null;
  @Column('uuid', { nullable: true })
  @ForeignKey(() => Organisation, { onDelete: 'CASCADE' })
  organisationId!: string | null;
}

/** `num_nonnulls(person_id, organisation_id) = 1`, the CHECK every contact table has. */
export const ONE_OWNER = 'num_nonnulls(person_id, organisation_id) = 1';
