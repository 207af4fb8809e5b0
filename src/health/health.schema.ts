import { ApiProperty } from '@nestjs/swagger';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import type { HealthReport, ReadinessReport } from './health.service.js';

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
  @ApiProperty({ type: 'string', required: false, description: 'Only when unavailable' }) message?: string;
}
