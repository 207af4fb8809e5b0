import { Column, ForeignKey, PrimaryColumn } from 'typeorm';
import { Organisation } from '../organisations/organisation.entity.js';
import { Person } from '../people/entities/person.entity.js';

/**
 * Phone numbers, emails and addresses belong to exactly one person or organisation (each
 * table's `<table>_one_owner` CHECK, declared on its entity).
 */
export abstract class OwnedByPersonOrOrganisation {
  /** The owner's enterprise; the composite references keep them equal. */
  @PrimaryColumn('uuid') enterpriseId!: string;
  @Column('uuid', { nullable: true }) personId!: string | null;
  @Column('uuid', { nullable: true }) organisationId!: string | null;
}

/**
 * The references `(enterprise_id, person_id)` and `(enterprise_id, organisation_id)` to the owner's
 * `(enterprise_id, id)`: PostgreSQL refuses a row tied to another enterprise's owner. Declared on
 * each contact entity (class decorators are not inherited).
 */
export function SameEnterpriseAsOwner(): ClassDecorator {
  const person = ForeignKey(() => Person, ['enterpriseId', 'personId'], ['enterpriseId', 'id'], {
    onDelete: 'CASCADE',
    onUpdate: 'CASCADE',
  });
  const organisation = ForeignKey(() => Organisation, ['enterpriseId', 'organisationId'], ['enterpriseId', 'id'], {
    onDelete: 'CASCADE',
    onUpdate: 'CASCADE',
  });
  return (target) => {
    person(target);
    organisation(target);
  };
}

/** `num_nonnulls(person_id, organisation_id) = 1`, the CHECK every contact table has. */
export const ONE_OWNER = 'num_nonnulls(person_id, organisation_id) = 1';
