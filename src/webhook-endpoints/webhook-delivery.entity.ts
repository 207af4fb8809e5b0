import { Column, Entity, ForeignKey, Index, PrimaryGeneratedColumn, PrimaryColumn } from 'typeorm';
import { RecordTimestampColumn } from '../database/columns.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';

/** One attempt to deliver one event to one endpoint, kept 7 days. */
@Entity('webhook_deliveries')
@Index('webhook_deliveries_endpoint_newest_idx', ['endpointId', 'createdAt'])
@ForeignKey(() => WebhookEndpoint, ['enterpriseId', 'endpointId'], ['enterpriseId', 'id'], {
  onDelete: 'CASCADE',
  onUpdate: 'CASCADE',
})
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid') id!: string;
  /** The endpoint's enterprise. */
  @PrimaryColumn('uuid') enterpriseId!: string;
  @Column('uuid') endpointId!: string;
  @Column({ type: 'varchar', length: 64 }) webhookId!: string;
  @Column({ type: 'varchar', length: 64 }) eventType!: string;
  @Column('integer') attempt!: number;
  @Column('integer', { nullable: true }) statusCode!: number | null;
  @Column({ type: 'varchar', length: 255, nullable: true }) error!: string | null;
  /** The first 1 KB of the answer's body, never more. */
  @Column('text', { nullable: true }) responseBody!: string | null;
  @Column('integer') durationMs!: number;
  /** The purge deletes by age. */
  @RecordTimestampColumn()
  @Index('webhook_deliveries_created_idx')
  createdAt!: Date;
}
