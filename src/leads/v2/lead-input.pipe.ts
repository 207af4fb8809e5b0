import { Injectable, type PipeTransform } from '@nestjs/common';
import type { RawResourceBody } from '../../writes/resource-body.decorator.js';
import { validatedV2Input } from '../../writes/v2-input.js';
import { LeadInputV2, V2_FIELDS } from '../dto/lead-v2.input.js';
import { MIXED_COLUMNS, TEXT_COLUMNS, type LeadChanges, type LeadColumns } from '../lead-fields.js';
import type { MixedValue } from '../lead.entity.js';

/**
 * v2 lead body -> columns to write. The body's keys are snake_case already (the route's key
 * normaliser); `team` is the header's enterprise.
 */
@Injectable()
export class V2LeadInputPipe implements PipeTransform<RawResourceBody, LeadChanges> {
  transform(raw: RawResourceBody): LeadChanges {
    const values = validatedV2Input(raw, LeadInputV2, V2_FIELDS, { team: raw.enterpriseId });
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
