import { ApiProperty } from '@nestjs/swagger';
import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { EnterpriseRole } from '../common/access/authenticated-user.js';
import type { MembershipRecord } from './enterprise-memberships.js';

@RecordSchema('Membership', "A user's membership of the enterprise and the role it holds there.")
export class MembershipSchema implements MembershipRecord {
  @UuidField({ description: 'The member (a user of the enterprise)' }) user_id!: string;
  @ApiProperty({
    type: 'string',
    enum: ['admin', 'member'],
    description: '`admin`: also manages webhook endpoints, integration tokens and reads the audit trail',
  })
  role!: EnterpriseRole;
  @TimestampField({ description: 'When the user joined the enterprise' }) created_at!: string;
}
