import { ApiProperty } from '@nestjs/swagger';
import { ApplicationSchema } from '../applications/application.schema.js';
import { RecordSchema } from '../openapi/record-schema.decorator.js';
import { TimestampField, UuidField } from '../openapi/schema-properties.js';
import type { QuoteRecord } from './quote.presenter.js';

@RecordSchema('Quote', 'A quote.')
export class QuoteSchema implements QuoteRecord {
  @UuidField() id!: string;
  @UuidField({ description: 'Owning enterprise' }) enterprise_id!: string;
  @ApiProperty({
    type: () => ApplicationSchema,
    nullable: true,
    required: false,
    description:
      'The embedded application (null when the quote has none). v1 embeds it in the list and the retrieve; ' +
      'v2 only in the retrieve, and its list leaves the key out.',
  })
  application?: ApplicationSchema | null;
  @TimestampField() created_at!: string;
  @TimestampField() updated_at!: string;
}
