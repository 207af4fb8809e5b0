import { Check, Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, Unique, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn, TimestampColumn, VarcharColumn } from '../database/columns.js';
import { Enterprise } from '../enterprises/enterprise.entity.js';

export type SignatureProvider = 'a' | 'b';
export const PROVIDER_A_STATUSES = ['sent', 'viewed', 'signed', 'declined', 'revoked'] as const;
export const PROVIDER_B_STATUSES = ['sent', 'delivered', 'completed', 'declined', 'voided'] as const;

const listed = (statuses: readonly string[]): string => statuses.map((s) => `'${s}'`).join(', ');

@Entity('signing_documents')
/**
 * Unique within an enterprise here (a distributed table's unique key holds its distribution
 * column); across enterprises the importer, the one writer, refuses a pair another document has.
 */
@Unique('signing_documents_external_key', ['provider', 'externalId', 'enterpriseId'])
@Check('signing_documents_provider_check', `provider IN ('a', 'b')`)
@Check(
  'signing_documents_status_check',
  `(provider = 'a' AND status IN (${listed(PROVIDER_A_STATUSES)})) OR ` +
    `(provider = 'b' AND status IN (${listed(PROVIDER_B_STATUSES)}))`,
)
export class SigningDocument {
  @PrimaryGeneratedColumn('uuid') id!: string;
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  @Index('signing_documents_enterprise_idx')
  enterpriseId!: string;
  @Column({ type: 'char', length: 1 }) provider!: SignatureProvider;
  @VarcharColumn() externalId!: string;
  @VarcharColumn({ length: 32 }) status!: string;
  @TimestampColumn({ nullable: true }) signedAt!: Date | null;
  @TimestampColumn({ nullable: true }) declinedAt!: Date | null;
  @TimestampColumn({ nullable: true }) revokedAt!: Date | null;
  @RecordTimestampColumn() createdAt!: Date;
  @RecordTimestampColumn() updatedAt!: Date;
}
