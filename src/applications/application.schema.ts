import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { DateField, MoneyField, TextField, TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { ApplicationRecord } from './application.presenter.js';

const FROM_ACTIVE_QUOTE = "From the active quote's calculation; null without an active quote";

@RecordSchema('Application', 'A finance application.')
export class ApplicationSchema implements ApplicationRecord {
  @UuidField() id!: string;
  @UuidField({ description: 'Owning enterprise' }) enterprise_id!: string;
  @DateField({ nullable: true }) settlement_date_actual!: string | null;
  @TextField({ nullable: true }) contract_number!: string | null;
  @TextField({ nullable: true, description: 'Referrer-type label' }) source_of_business!: string | null;
  @TextField({ nullable: true, description: FROM_ACTIVE_QUOTE }) asset_type!: string | null;
  @TextField({ nullable: true, description: FROM_ACTIVE_QUOTE }) asset_description!: string | null;
  @TextField({ nullable: true, description: FROM_ACTIVE_QUOTE }) financier!: string | null;
  @MoneyField({ nullable: true, description: 'Total financed amount of the active quote' })
  total_finance_amount!: string | null;
  @TextField({ nullable: true, description: 'Linked deal in an external CRM' }) crm_deal_id!: string | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}
