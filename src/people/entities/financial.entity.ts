import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../../database/columns.js';

@Entity('financials')
export class Financial {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') personId!: string;
  @Column('varchar') type!: string;
  /** numeric(14,2), kept as the decimal string PostgreSQL returns. */
  @Column('numeric', { precision: 14, scale: 2 }) amount!: string;
  @Column('varchar', { nullable: true }) category!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
