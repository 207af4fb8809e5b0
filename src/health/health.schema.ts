import { ApiProperty } from '@nestjs/swagger';
import { NamedSchema } from '../openapi/record-schema.decorator.js';
import type { HealthReport } from './health.service.js';

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
