import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { LeadRecord } from './lead.presenter.js';

@RecordSchema('Lead', 'A lead. The other stored input fields are not returned.')
export class LeadSchema implements LeadRecord {
  @UuidField() id!: string;
  @UuidField({ description: 'Owning enterprise' }) enterprise_id!: string;
  @TextField({ description: 'One-line summary' }) title!: string;
  @TextField({ nullable: true }) description!: string | null;
  @TextField({ nullable: true, description: 'Contact person display name' }) person_name!: string | null;
  @TextField({ nullable: true, description: 'Contact organisation display name' }) organisation_name!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}
