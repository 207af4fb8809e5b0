import { Check, Column, Entity, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn } from '../database/columns.js';

/** The one value encrypted with the data's key, decrypted at every start (see key-check.ts). */
@Entity('key_check')
@Check('key_check_id_check', 'id = 1')
export class KeyCheck {
  @PrimaryColumn('smallint', { default: 1 }) id!: number;
  @Column('text') valueEncrypted!: string;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
