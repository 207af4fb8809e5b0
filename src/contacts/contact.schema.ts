import { ApiProperty } from '@nestjs/swagger';
import { ListOf } from '../openapi/envelope.schema.js';
import { LOWERCASE_TIMESTAMPS, RecordSchema } from '../openapi/record-schema.decorator.js';
import { FlagField, TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { AddressRecord, EmailRecord, PhoneNumberRecord } from './contact.presenter.js';

@RecordSchema('PhoneNumber', 'A phone number row.', LOWERCASE_TIMESTAMPS)
export class PhoneNumberSchema implements PhoneNumberRecord {
  @UuidField() id!: string;
  @TextField({ description: 'First letter upper-cased', example: 'Mobile' }) type!: string;
  @TextField() number!: string;
  @FlagField() is_primary!: boolean;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}

@RecordSchema('Email', 'An email row.', LOWERCASE_TIMESTAMPS)
export class EmailSchema implements EmailRecord {
  @UuidField() id!: string;
  @TextField() address!: string;
  @FlagField() is_primary!: boolean;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}

@RecordSchema('Address', 'An address row.', LOWERCASE_TIMESTAMPS)
export class AddressSchema implements AddressRecord {
  @UuidField() id!: string;
  @TextField({ nullable: true, description: 'Address-type label' }) type!: string | null;
  @TextField({ nullable: true, description: 'Single composed line' }) address!: string | null;
  @TextField({ nullable: true }) line1!: string | null;
  @TextField({ nullable: true }) line2!: string | null;
  @TextField({ nullable: true }) line3!: string | null;
  @TextField({ nullable: true }) suburb!: string | null;
  @TextField({ nullable: true, description: 'State name' }) state!: string | null;
  @TextField({ nullable: true }) postcode!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}

/** The contact collections of a person and an organisation, each `{data: [rows]}`. */
export const PhoneNumbersField = (): PropertyDecorator => ApiProperty({ type: () => ListOf(PhoneNumberSchema) });
export const EmailsField = (): PropertyDecorator => ApiProperty({ type: () => ListOf(EmailSchema) });
export const AddressesField = (): PropertyDecorator => ApiProperty({ type: () => ListOf(AddressSchema) });
