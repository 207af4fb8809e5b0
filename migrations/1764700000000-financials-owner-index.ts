import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Financials are found by their person whatever their amount: the index that served only
 * amounts above zero (the ones a record shows) left every other read by person to a full scan
 * of the table, among them the export's page of people, the import's replacement of a person's
 * financials and the cascade of a person's delete. One index over every row serves them all;
 * a record's read filters the amounts above zero from it.
 */
export class FinancialsOwnerIndex1764700000000 implements MigrationInterface {
  name = 'FinancialsOwnerIndex1764700000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX financials_person_idx`);
    await q.query(`CREATE INDEX financials_person_idx ON financials (person_id, created_at, id)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX financials_person_idx`);
    await q.query(`CREATE INDEX financials_person_idx ON financials (person_id, created_at, id) WHERE amount > 0`);
  }
}
