import { Column } from 'typeorm';

/** Phone numbers, emails and addresses belong to exactly one person or organisation. */
export abstract class OwnedByPersonOrOrganisation {
  @Column('uuid', { nullable: true }) personId!: string | null;
  @Column('uuid', { nullable: true }) organisationId!: string | null;
}
