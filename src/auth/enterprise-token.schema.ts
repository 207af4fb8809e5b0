import { ApiProperty } from '@nestjs/swagger';
import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { EnterpriseTokenRecord } from './enterprise-tokens.js';

@RecordSchema('Token', 'An integration token that can act for the enterprise (never its secret).')
export class EnterpriseTokenSchema implements EnterpriseTokenRecord {
  @UuidField({ description: 'The token id (the part before `|`)' }) id!: string;
  @TextField({ nullable: true, description: 'What it is for, as the operator named it' }) name!: string | null;
  @UuidField({ description: 'The member it acts as' }) user_id!: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'string' },
    nullable: true,
    description: 'What it may do (`read`, `leads:write`, ...); null: everything its user may',
  })
  abilities!: string[] | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'string', format: 'uuid' },
    nullable: true,
    description: 'The enterprises it may act for; null: every enterprise of its user',
  })
  enterprise_ids!: string[] | null;
  @TimestampField() created_at!: string;
  @TimestampField({ nullable: true, description: 'Written at most once a minute; null: never used' })
  last_used_at!: string | null;
  @TimestampField({ nullable: true, description: 'When it stops working; null: when revoked' })
  expires_at!: string | null;
}
