import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { Enterprise } from '../enterprises/enterprise.entity.js';

/**
 * A tenant table's row count per enterprise, kept by triggers (a list's `meta.total`), and the
 * version its change-log writes bump (a list's ETag). bigint: strings, as node-postgres reads them.
 */
@Entity('tenant_row_counts')
export class TenantRowCount {
  @PrimaryColumn('uuid')
  @ForeignKey(() => Enterprise, { onDelete: 'CASCADE' })
  enterpriseId!: string;
  @PrimaryColumn('text') tableName!: string;
  @Column('bigint') rowCount!: string;
  @Column('bigint', { default: 0 }) version!: string;
}
