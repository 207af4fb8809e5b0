import { ApiProperty } from '@nestjs/swagger';

/**
 * Property decorators for the response schemas, one per kind of wire value (timestamp, date, flag, money). `nullable` is
 * written the OpenAPI 3.0 way that @nestjs/swagger understands; the document builder turns it
 * into 3.1's `type: [..., 'null']`.
 */
interface FieldOptions {
  description?: string;
  nullable?: boolean;
  example?: unknown;
  format?: string;
}

const ISO_TIMESTAMP = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const DECIMAL = '^-?\\d+\\.\\d{2}$';

export const UuidField = (o: FieldOptions = {}): PropertyDecorator =>
  ApiProperty({ type: 'string', format: 'uuid', ...o });

export const TextField = (o: FieldOptions = {}): PropertyDecorator => ApiProperty({ type: 'string', ...o });

/** Timestamps: ISO 8601 UTC with milliseconds. */
export const TimestampField = (o: FieldOptions = {}): PropertyDecorator =>
  ApiProperty({
    type: 'string',
    format: 'date-time',
    pattern: ISO_TIMESTAMP,
    example: '2026-01-31T09:15:00.000Z',
    ...o,
  });

/** Dates: `YYYY-MM-DD`. */
export const DateField = (o: FieldOptions = {}): PropertyDecorator =>
  ApiProperty({ type: 'string', format: 'date', example: '2026-01-31', ...o });

/** A 1/0 flag as a boolean. */
export const FlagField = (o: FieldOptions = {}): PropertyDecorator => ApiProperty({ type: 'boolean', ...o });

export const IntegerField = (o: FieldOptions & { minimum?: number } = {}): PropertyDecorator =>
  ApiProperty({ type: 'integer', ...o });

/** Money is a decimal string with two places, never a JSON number. */
export const MoneyField = (o: FieldOptions = {}): PropertyDecorator =>
  ApiProperty({ type: 'string', pattern: DECIMAL, example: '25000.00', ...o });
