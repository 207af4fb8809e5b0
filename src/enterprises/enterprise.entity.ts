import { Check, Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { FlagColumn, RecordTimestampColumn, VarcharColumn } from '../database/columns.js';

@Entity('enterprises')
@Check('enterprises_is_active_check', 'is_active IN (0, 1)')
export class Enterprise {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @VarcharColumn() name!: string;
  @FlagColumn(1) isActive!: boolean;
  /** The provider B HMAC key, encrypted with APP_KEY. */
  @Column('text', { nullable: true }) signproviderBKeyEncrypted!: string | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
