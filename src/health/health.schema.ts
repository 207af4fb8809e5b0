import { ApiProperty } from '@nestjs/swagger';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import type { HealthReport, ReadinessReport, ReplicaHealth } from './health.service.js';

@NamedSchema('Health', 'Whether the service can serve requests.')
export class HealthSchema implements HealthReport {
  @ApiProperty({ type: 'string', enum: ['ok', 'unavailable'] }) status!: 'ok' | 'unavailable';
  @ApiProperty({ type: 'string', enum: ['up', 'down'] }) database!: 'up' | 'down';
  @ApiProperty({
    type: 'string',
    enum: ['up', 'down'],
    required: false,
    description: 'Only with REDIS_URL set: the shared rate-limit store (down is degraded, still 200)',
  })
  redis?: 'up' | 'down';
  @ApiProperty({ type: 'string', required: false, description: 'Only when unavailable' }) message?: string;
}

@NamedSchema('Liveness', 'The process serves requests (nothing else is checked).')
export class LivenessSchema {
  @ApiProperty({ type: 'string', enum: ['ok'] }) status!: 'ok';
}

@NamedSchema('ReplicaHealth', 'One streaming replica as the last probe found it.')
export class ReplicaHealthSchema implements ReplicaHealth {
  @ApiProperty({ type: 'string', description: 'host:port/database of the replica (no credentials)' }) name!: string;
  @ApiProperty({ type: 'boolean', description: 'Its last probe answered, as a standby' }) reachable!: boolean;
  @ApiProperty({ type: 'boolean', description: 'Reads go to it now (reachable, within DATABASE_REPLICA_MAX_LAG_MS)' })
  serving!: boolean;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Milliseconds behind the primary at the last probe; null while unknown',
  })
  lag_ms!: number | null;
  @ApiProperty({
    type: 'boolean',
    description:
      'Its WAL receiver is connected to the primary (at two probes in a row). False on a reachable replica: it ' +
      'fell off and answers from an ever older state (reads go to the primary); it needs cloning again',
  })
  receiving!: boolean;
  @ApiProperty({ type: 'integer', description: 'Read statements of requests it answered since the process started' })
  reads!: number;
}

@NamedSchema('Readiness', 'Whether this instance should receive traffic.')
export class ReadinessSchema implements ReadinessReport {
  @ApiProperty({ type: 'string', enum: ['ok', 'unavailable'] }) status!: 'ok' | 'unavailable';
  @ApiProperty({ type: 'string', enum: ['up', 'down'] }) database!: 'up' | 'down';
  @ApiProperty({
    type: 'string',
    enum: ['applied', 'pending'],
    required: false,
    description: 'Whether every migration of this release is applied; absent while the database does not answer',
  })
  migrations?: 'applied' | 'pending';
  @ApiProperty({
    type: 'string',
    enum: ['up', 'down'],
    required: false,
    description: 'Only with REDIS_URL set: the shared rate-limit store (down is degraded, still ready)',
  })
  redis?: 'up' | 'down';
  @ApiProperty({
    type: [ReplicaHealthSchema],
    required: false,
    description:
      'Only with DATABASE_REPLICA_URLS set, when ready: each replica. A replica down or behind never makes the ' +
      'instance unready: its reads go to the primary.',
  })
  replicas?: ReplicaHealth[];
  @ApiProperty({
    type: 'integer',
    required: false,
    description: 'Only with DATABASE_REPLICA_URLS set, when ready: read statements of requests the primary answered',
  })
  primary_reads?: number;
  @ApiProperty({ type: 'string', required: false, description: 'Only when unavailable' }) message?: string;
}
