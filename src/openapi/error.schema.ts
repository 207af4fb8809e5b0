import { ApiProperty } from '@nestjs/swagger';
import { NamedSchema } from './record-schema.decorator.js';
import type { FieldErrors } from '../common/http/validation-failed.exception.js';

@NamedSchema('Error', 'Every error body has a message.')
export class ErrorSchema {
  @ApiProperty({ type: 'string', example: 'Forbidden.' }) message!: string;
}

@NamedSchema('ValidationError', 'A validation failure: the message and each failing field with its messages.')
export class ValidationErrorSchema {
  @ApiProperty({ type: 'string', example: 'The given data was invalid.' }) message!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 },
    example: { title: ['The title field is required.'] },
  })
  errors!: FieldErrors;
}
