import { LOWERCASE_TIMESTAMPS, RecordSchema } from '../openapi/record-schema.decorator.js';
import { FlagField, TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { EnterpriseRecord } from './enterprise.presenter.js';

/** v1 keeps the enterprise's `created_at`/`updated_at` lowercase. */
@RecordSchema('Enterprise', 'An enterprise (tenant).', LOWERCASE_TIMESTAMPS)
export class EnterpriseSchema implements EnterpriseRecord {
  @UuidField({ description: 'The value to send in the enterprise header' }) id!: string;
  @TextField({ description: 'Display name' }) name!: string;
  @FlagField({ description: 'True when the stored active flag is 1' }) is_active!: boolean;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}
