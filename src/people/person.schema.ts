import { ApiProperty } from '@nestjs/swagger';
import type { AddressRecord, Collection, EmailRecord, PhoneNumberRecord } from '../contacts/contact.presenter.js';
import { AddressesField, EmailsField, PhoneNumbersField } from '../contacts/contact.schema.js';
import { ListOf } from '../openapi/envelope.schema.js';
import { LOWERCASE_TIMESTAMPS, RecordSchema } from '../openapi/record-schema.decorator.js';
import {
  DateField,
  IntegerField,
  MoneyField,
  TextField,
  TimestampField,
  UuidField,
} from '../openapi/schema-properties.js';
import type { FinancialRecord, PersonRecord } from './person.presenter.js';

@RecordSchema('Financial', 'A financial row; only amounts above 0 are listed.', LOWERCASE_TIMESTAMPS)
export class FinancialSchema implements FinancialRecord {
  @UuidField() id!: string;
  @TextField({ description: 'First letter upper-cased', example: 'Income' }) type!: string;
  @MoneyField() amount!: string;
  @TextField({ nullable: true, description: 'Each word capitalised' }) category!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}

@RecordSchema('Person', 'A natural person.')
export class PersonSchema implements PersonRecord {
  @UuidField() id!: string;
  @UuidField({ description: 'Owning enterprise' }) enterprise_id!: string;
  @TextField({ nullable: true, description: 'Honorific' }) title!: string | null;
  @TextField({ nullable: true, description: 'Encrypted at rest' }) first_name!: string | null;
  @TextField({ nullable: true }) middle_name!: string | null;
  @TextField({ nullable: true }) last_name!: string | null;
  @TextField({ nullable: true }) salutation!: string | null;
  @TextField({ nullable: true }) maiden_name!: string | null;
  @DateField({ nullable: true }) birthday!: string | null;
  @TextField({ nullable: true }) gender!: string | null;
  @TextField({ nullable: true, description: 'Driver licence number' }) licence!: string | null;
  @TextField({ nullable: true }) licence_card!: string | null;
  @TextField({ nullable: true, description: 'Name of the issuing state' }) licence_state!: string | null;
  @DateField({ nullable: true }) licence_expiry!: string | null;
  @IntegerField({ nullable: true }) dependents!: number | null;
  @TextField({ nullable: true, description: 'Free-text ages' }) dependents_ages!: string | null;
  @TextField({ nullable: true }) marital_status!: string | null;
  @TextField({ nullable: true }) residency_status!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
  @PhoneNumbersField() phone_numbers!: Collection<PhoneNumberRecord>;
  @EmailsField() emails!: Collection<EmailRecord>;
  @AddressesField() addresses!: Collection<AddressRecord>;
  @ApiProperty({ type: () => ListOf(FinancialSchema), description: 'Only rows whose amount is above 0' })
  financials!: Collection<FinancialRecord>;
}
