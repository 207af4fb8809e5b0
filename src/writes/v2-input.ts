import { BadRequestException } from '@nestjs/common';
import { validateSync } from 'class-validator';
import { RejectedBody } from '../common/casing/v2-key-normaliser.interceptor.js';
import { laravelErrors } from '../common/http/laravel-errors.js';
import { ResourceValidationException } from '../common/http/validation-failed.exception.js';
import type { RawResourceBody } from './resource-body.decorator.js';
import { blankToNull, isJsonObject } from './write-values.js';

/**
 * A v2 write's body, validated by the resource's input class (its `write-rules` decorators): the
 * values of `fields` the body sent (blank strings as null), then `filled` (values the server
 * sets, e.g. from the header), or a 400 with every field's messages. The keys are snake_case
 * already (the route's key normaliser); every other key is dropped, and a body that is not a
 * JSON object counts as an empty one.
 */
export function validatedV2Input(
  { body }: RawResourceBody,
  rules: new () => object,
  fields: readonly string[],
  filled: Record<string, unknown> = {},
): Record<string, unknown> {
  if (body instanceof RejectedBody) throw new BadRequestException({ message: body.message });
  const source = isJsonObject(body) ? body : {};
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    if (Object.hasOwn(source, field)) values[field] = blankToNull(source[field]);
  }
  Object.assign(values, filled);
  const errors = validateSync(Object.assign(new rules(), values), {
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) throw new ResourceValidationException(laravelErrors(errors));
  return values;
}
