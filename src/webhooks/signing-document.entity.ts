import { Entity, PrimaryColumn, Column } from 'typeorm';
import { TimestampColumn } from '../database/columns.js';

export type SignatureProvider = 'a' | 'b';
export const PROVIDER_A_STATUSES = ['sent', 'viewed', 'signed', 'declined', 'revoked'] as const;
export const PROVIDER_B_STATUSES = ['sent', 'delivered', 'completed', 'declined', 'voided'] as const;

@Entity('signing_documents')
export class SigningDocument {
  @PrimaryColumn('uuid') id!: string;
  @Column('uuid') enterpriseId!: string;
  @Column({ type: 'char', length: 1 }) provider!: SignatureProvider;
  @Column('varchar') externalId!: string;
  @Column('varchar') status!: string;
  @TimestampColumn({ nullable: true }) signedAt!: Date | null;
  @TimestampColumn({ nullable: true }) declinedAt!: Date | null;
  @TimestampColumn({ nullable: true }) revokedAt!: Date | null;
  @TimestampColumn() createdAt!: Date;
  @TimestampColumn() updatedAt!: Date;
}
