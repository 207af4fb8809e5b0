import { Column, Entity, Index, PrimaryGeneratedColumn, PrimaryColumn } from 'typeorm';

/**
 * A change to an enterprise's row count of one table (0 for a change that moves only the list's
 * version), inserted by the writers' triggers and folded into tenant_row_counts in the
 * background. No foreign key: its check would lock the enterprise row in every writing
 * transaction; deltas of a deleted enterprise are dropped by the fold.
 */
@Entity('tenant_count_deltas')
@Index('tenant_count_deltas_list_idx', ['enterpriseId', 'tableName'])
export class TenantCountDelta {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id!: string;
  @PrimaryColumn('uuid') enterpriseId!: string;
  @Column('text') tableName!: string;
  @Column('bigint') rowDelta!: string;
}
