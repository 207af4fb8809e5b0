import { BadRequestException, Injectable, type PipeTransform, type Type } from '@nestjs/common';
import { getMetadataStorage, validateSync } from 'class-validator';
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

/** The validated values of a v2 body, by field (which, for a record of one row, is its column). */
export type V2Values = Record<string, unknown>;

/**
 * The input pipe of a v2 write whose fields are the input class's properties (each with its
 * rules), for a record that is one row of its table: `@ResourceBody(v2InputPipe(NoteInput))`.
 * The values sent, validated, go to `TableWrites` as they are.
 */
export function v2InputPipe(rules: new () => object): Type<PipeTransform<RawResourceBody, V2Values>> {
  const fields = [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(rules, '', true, false)
        .map((m) => m.propertyName),
    ),
  ];
  @Injectable()
  class V2InputPipe implements PipeTransform<RawResourceBody, V2Values> {
    transform(raw: RawResourceBody): V2Values {
      return validatedV2Input(raw, rules, fields);
    }
  }
  return V2InputPipe;
}
