import { Entity, PrimaryColumn, Column } from 'typeorm';
import { FlagColumn, TimestampColumn } from '../database/columns.js';

@Entity('enterprises')
export class Enterprise {
  @PrimaryColumn('uuid') id!: string;
  @Column('varchar') name!: string;
  @FlagColumn() isActive!: boolean;
  /** The provider B HMAC key, encrypted with APP_KEY. */
  @Column('text', { nullable: true }) signproviderBKeyEncrypted!: string | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
