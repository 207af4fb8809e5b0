import { Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { RecordTimestampColumn, VarcharColumn } from '../../database/columns.js';
import { Person } from './person.entity.js';

@Entity('financials')
/** Every row, whatever its amount: the export and a person's delete find them all by person. */
@Index('financials_person_idx', ['personId', 'createdAt', 'id'])
/** Of its person's enterprise: PostgreSQL refuses a row tied to another enterprise's person. */
@ForeignKey(() => Person, ['enterpriseId', 'personId'], ['enterpriseId', 'id'], {
  onDelete: 'CASCADE',
  onUpdate: 'CASCADE',
})
export class Financial {
  @PrimaryGeneratedColumn('uuid') id!: string;
  /** The person's enterprise; the composite reference keeps them equal. */
  @PrimaryColumn('uuid') enterpriseId!: string;
  @Column('uuid') personId!: string;
  @VarcharColumn() type!: string;
  /** numeric(14,2), kept as the decimal string PostgreSQL returns. */
  @Column('numeric', { precision: 14, scale: 2 }) amount!: string;
  @VarcharColumn({ nullable: true }) category!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
