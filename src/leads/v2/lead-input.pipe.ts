import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { validateSync } from 'class-validator';
import { RejectedBody } from '../../common/casing/v2-key-normaliser.interceptor.js';
import { laravelErrors } from '../../common/http/laravel-errors.js';
import { LeadValidationException } from '../../common/http/validation-failed.exception.js';
import { LeadInputV2, V2_FIELDS } from '../dto/lead-v2.input.js';
import { isJsonObject, type RawLeadBody } from '../lead-body.decorator.js';
import { blankToNull, MIXED_COLUMNS, TEXT_COLUMNS, type LeadChanges, type LeadColumns } from '../lead-fields.js';
import type { MixedValue } from '../lead.entity.js';

/**
 * v2 lead body -> columns to write. The body's keys are snake_case already (the
 * global normaliser). A body that is not a JSON object counts as an empty one.
 */
@Injectable()
export class V2LeadInputPipe implements PipeTransform<RawLeadBody, LeadChanges> {
  transform({ body, enterpriseId }: RawLeadBody): LeadChanges {
    if (body instanceof RejectedBody) throw new BadRequestException({ message: body.message });
    const source = isJsonObject(body) ? body : {};
    const values: Record<string, unknown> = {};
    for (const field of V2_FIELDS) {
      if (Object.hasOwn(source, field)) values[field] = blankToNull(source[field]);
    }
    values.team = enterpriseId;
    const errors = validateSync(Object.assign(new LeadInputV2(), values), {
      validationError: { target: false, value: false },
    });
    if (errors.length > 0) throw new LeadValidationException(laravelErrors(errors));
    return { columns: toColumns(values), extraInput: {}, sentKeys: [] };
  }
}

/** Validated values -> columns; person_name ?? person, organisation_name ?? organisation. */
function toColumns(values: Record<string, unknown>): LeadColumns {
  const has = (field: string) => Object.hasOwn(values, field);
  const columns: LeadColumns = {};
  for (const column of TEXT_COLUMNS) if (has(column)) columns[column] = values[column] as string | null;
  for (const column of MIXED_COLUMNS) if (has(column)) columns[column] = values[column] as MixedValue;
  if (has('person') || has('person_name')) {
    columns.person_name = (values.person_name ?? values.person ?? null) as string | null;
  }
  if (has('organisation') || has('organisation_name')) {
    columns.organisation_name = (values.organisation_name ?? values.organisation ?? null) as string | null;
  }
  return columns;
}
