import { BadRequestException, Injectable, type PipeTransform } from '@nestjs/common';
import { validateSync } from 'class-validator';
import { BODY_TOO_DEEP_MESSAGE, nestedDeeperThan } from '../../common/casing/normalise-keys.js';
import { laravelErrors } from '../../common/http/laravel-errors.js';
import { ResourceValidationException, type FieldErrors } from '../../common/http/validation-failed.exception.js';
import type { RawResourceBody } from '../../writes/resource-body.decorator.js';
import { fieldLabel } from '../../writes/write-rules.js';
import {
  blankToNull,
  charLength,
  isJsonObject,
  isJsonScalar,
  isStorableJson,
  isStorableText,
} from '../../writes/write-values.js';
import { LeadInputV1 } from '../dto/lead-v1.input.js';
import {
  MIXED_COLUMNS,
  NAME_MAX_CHARS,
  TEXT_COLUMNS,
  type LeadChanges,
  type LeadColumns,
  type TextColumn,
} from '../lead-fields.js';

/** Columns v1 fills from either of two keys, the PascalCase one winning. */
export const PAIRS: readonly { column: TextColumn; keys: readonly [string, string] }[] = [
  { column: 'title', keys: ['Title', 'title'] },
  { column: 'person_name', keys: ['PersonName', 'person'] },
  { column: 'organisation_name', keys: ['OrganisationName', 'organisation'] },
  { column: 'description', keys: ['Description', 'description'] },
];
const PAIRED = new Set<string>(PAIRS.map((pair) => pair.column));
/** The other input columns, filled from keys named like them (the v1 keys shared with v2's field names). */
export const DIRECT_TEXT = TEXT_COLUMNS.filter((column) => !PAIRED.has(column));
const VARCHAR = new Set<string>(['title', 'person_name', 'organisation_name']);

/**
 * v1 lead body -> columns to write, with no key normalisation. Only the title and
 * person rules can fail. A key fills its column when its value fits it; every key that
 * fills no column (unknown keys, the losing casing of a pair, a value of the wrong type for
 * its column) is kept in extra_input, so nothing a v1 client sends is lost.
 */
@Injectable()
export class V1LeadInputPipe implements PipeTransform<RawResourceBody, LeadChanges> {
  transform({ body }: RawResourceBody): LeadChanges {
    if (nestedDeeperThan(body)) throw new BadRequestException({ message: BODY_TOO_DEEP_MESSAGE });
    const source = isJsonObject(body) ? body : {};
    const errors = validate(source);
    if (Object.keys(errors).length > 0) throw new ResourceValidationException(errors);

    const columns: LeadColumns = {};
    const consumed = new Set<string>();
    for (const { column, keys } of PAIRS) {
      const key = winningKey(source, keys);
      if (key === undefined) continue;
      const value = blankToNull(source[key]);
      if (fitsText(column, value)) {
        columns[column] = value;
        consumed.add(key);
      }
    }
    for (const column of DIRECT_TEXT) {
      if (!Object.hasOwn(source, column)) continue;
      const value = blankToNull(source[column]);
      if (fitsText(column, value)) {
        columns[column] = value;
        consumed.add(column);
      }
    }
    for (const column of MIXED_COLUMNS) {
      if (!Object.hasOwn(source, column)) continue;
      const value = blankToNull(source[column]);
      if (isJsonScalar(value)) {
        columns[column] = value;
        consumed.add(column);
      }
    }
    const extraInput = Object.fromEntries(Object.entries(source).filter(([key]) => !consumed.has(key)));
    return { columns, extraInput, sentKeys: Object.keys(source) };
  }
}

/** The v1 rule set (title and person) plus, for every key, text PostgreSQL can store. */
function validate(source: Record<string, unknown>): FieldErrors {
  const pick = (keys: readonly [string, string]): unknown => {
    const key = winningKey(source, keys);
    return key === undefined ? undefined : blankToNull(source[key]);
  };
  const input = Object.assign(new LeadInputV1(), {
    Title: pick(['Title', 'title']),
    PersonName: pick(['PersonName', 'person']),
  });
  const errors = laravelErrors(validateSync(input, { validationError: { target: false, value: false } }));
  for (const [key, value] of Object.entries(source)) {
    if (isStorableText(key) && isStorableJson(value)) continue;
    const message = `The ${fieldLabel(key)} field must not contain null characters or unpaired surrogates.`;
    const earlier = Object.hasOwn(errors, key) ? (errors[key] ?? []) : [];
    errors[key] = [...new Set([...earlier, message])];
  }
  return errors;
}

/**
 * Which of a pair of keys fills the column: the first (PascalCase) one with a value, else the
 * other one with a value, else the first one sent (its value is null); undefined when neither.
 */
function winningKey(source: Record<string, unknown>, keys: readonly [string, string]): string | undefined {
  const sent = keys.filter((key) => Object.hasOwn(source, key));
  return sent.find((key) => blankToNull(source[key]) !== null) ?? sent[0];
}

function fitsText(column: string, value: unknown): value is string | null {
  if (value === null) return true;
  if (typeof value !== 'string' || !isStorableText(value)) return false;
  return !VARCHAR.has(column) || charLength(value) <= NAME_MAX_CHARS;
}
