import { ApiProperty } from '@nestjs/swagger';
import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import { AUDIT_ACTIONS, type AuditEventRecord } from './audit-trail.js';

@RecordSchema('AuditEvent', 'A security-relevant action in the enterprise: who did what, to what, from where.')
export class AuditEventSchema implements AuditEventRecord {
  @UuidField() id!: string;
  @TimestampField({ description: 'When it happened' }) occurred_at!: string;
  @ApiProperty({
    type: 'object',
    required: ['type', 'user_id', 'token_id'],
    properties: {
      type: {
        type: 'string',
        enum: ['user', 'cli', 'system'],
        description: 'A user through the API, an operator through the CLI, or the service itself',
      },
      user_id: { type: 'string', format: 'uuid', nullable: true, description: "The user's id (API); null otherwise" },
      token_id: { type: 'string', format: 'uuid', nullable: true, description: "The id of the user's token (API)" },
    },
  })
  actor!: AuditEventRecord['actor'];
  @ApiProperty({ type: 'string', enum: [...AUDIT_ACTIONS], description: 'What was done' }) action!: string;
  @ApiProperty({
    type: 'object',
    required: ['type', 'id'],
    properties: {
      type: { type: 'string', description: '`token`, `membership`, `user` or `webhook_endpoint`' },
      id: { type: 'string', nullable: true, description: 'Its id' },
    },
  })
  target!: AuditEventRecord['target'];
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'Names of what changed (abilities given, a role, the fields of an update); never a secret',
  })
  details!: Record<string, unknown>;
  @TextField({ nullable: true, description: "The client's address (API); null otherwise" }) client_ip!: string | null;
  @TextField({ nullable: true, description: 'The request id (API), as in the X-Request-Id header' })
  request_id!: string | null;
}
