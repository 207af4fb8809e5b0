import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { FlagField, TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { UserRecord } from './user.presenter.js';

@RecordSchema('User', 'A user.')
export class UserSchema implements UserRecord {
  @UuidField() id!: string;
  @TextField({ description: 'Display name' }) name!: string;
  @TextField({ format: 'email', description: 'Email address' }) email!: string;
  @FlagField({ description: 'True when the stored active flag is 1' }) is_active!: boolean;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}
