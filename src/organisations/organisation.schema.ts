import type { Parsed } from '../database/json-text.js';
import type { AddressRecord, Collection, EmailRecord, PhoneNumberRecord } from '../contacts/contact.presenter.js';
import { AddressesField, EmailsField, PhoneNumbersField } from '../contacts/contact.schema.js';
import { RecordSchema } from '../openapi/record-schema.decorator.js';
import {
  DateField,
  FlagField,
  IntegerField,
  TextField,
  TimestampField,
  UuidField,
} from '../openapi/schema-properties.js';
import type { OrganisationRecord } from './organisation.presenter.js';

@RecordSchema('Organisation', 'A legal entity.')
export class OrganisationSchema implements Parsed<OrganisationRecord> {
  @UuidField() id!: string;
  @UuidField({ description: 'Owning enterprise' }) enterprise_id!: string;
  @TextField() legal_name!: string;
  @TextField({ nullable: true, description: 'Organisation-type label' }) legal_structure!: string | null;
  @TextField({ nullable: true }) short_name!: string | null;
  @TextField({ nullable: true }) trust_name!: string | null;
  @TextField({ nullable: true, description: 'Company number' }) acn!: string | null;
  @TextField({ nullable: true, description: 'Business number' }) abn!: string | null;
  @TextField({ nullable: true, description: 'Business-number entity-type label' }) entity_type!: string | null;
  @DateField({ nullable: true }) abn_registration!: string | null;
  @TextField({ nullable: true }) abn_status!: string | null;
  @FlagField() gst_registered!: boolean;
  @DateField({ nullable: true }) gst_date!: string | null;
  @TextField({ nullable: true }) business_name!: string | null;
  @TextField({ nullable: true }) business_name2!: string | null;
  @TextField({ nullable: true }) business_name3!: string | null;
  @TextField({ nullable: true }) former_name!: string | null;
  @TextField({ nullable: true }) former_name2!: string | null;
  @TextField({ nullable: true }) former_name3!: string | null;
  @TextField({ nullable: true }) description!: string | null;
  @DateField({ nullable: true }) established_date!: string | null;
  @IntegerField({ nullable: true }) employees_count!: number | null;
  @TextField({ nullable: true }) industry!: string | null;
  @TextField({ nullable: true }) website!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
  @PhoneNumbersField() phone_numbers!: Collection<PhoneNumberRecord>;
  @EmailsField() emails!: Collection<EmailRecord>;
  @AddressesField() addresses!: Collection<AddressRecord>;
}
