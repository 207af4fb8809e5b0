import { ValidateBy, type ValidationArguments } from 'class-validator';
import { isEmailAddress } from '../common/validation/email-address.js';
import { snakeKey } from '../common/casing/snake-key.js';
import { isUuid } from '../database/uuid.js';
import { charLength, isJsonScalar, isStorableText } from './write-values.js';

/**
 * The input rules of every writable resource: Laravel's rules as class-validator decorators,
 * with Laravel's messages. A resource's input class carries them (`@Required() @IsText() title`);
 * the same class validates the body and gives the OpenAPI request schema (validation-schema.ts).
 * Every rule but the "required" ones passes a missing or null value (`nullable`), so each
 * property can carry several rules without `IsOptional` switching the required ones off. Blank
 * strings are turned into null before validation (write-values.ts `blankToNull`).
 *
 * Constraint names `isDefined` and `isString` make laravelErrors report that message alone.
 */

/** How Laravel names a field in messages: `person_name` and `PersonName` read "person name". */
export function fieldLabel(property: string): string {
  return snakeKey(property).replace(/_/g, ' ');
}

const absent = (value: unknown): boolean => value === undefined || value === null;

function label(args: ValidationArguments | undefined): string {
  return fieldLabel(args?.property ?? '');
}

/** `required`: present and not null (blank strings are null by then). */
export function Required(): PropertyDecorator {
  return ValidateBy({
    name: 'isDefined',
    validator: {
      validate: (value: unknown) => !absent(value),
      defaultMessage: (args) => `The ${label(args)} field is required.`,
    },
  });
}

/** `required_without:other`: required when the other field is absent or null. */
export function RequiredWithout(other: string): PropertyDecorator {
  return ValidateBy({
    name: 'isDefined',
    constraints: [other],
    validator: {
      validate: (value: unknown, args) =>
        !absent(value) || !absent((args?.object as Record<string, unknown> | undefined)?.[other]),
      defaultMessage: (args) => `The ${label(args)} field is required when ${fieldLabel(other)} is not present.`,
    },
  });
}

/** `string`, for a value that is there. */
export function IsText(): PropertyDecorator {
  return ValidateBy({
    name: 'isString',
    validator: {
      validate: (value: unknown) => absent(value) || typeof value === 'string',
      defaultMessage: (args) => `The ${label(args)} field must be a string.`,
    },
  });
}

/** `max:n` on a string, in characters (code points), not bytes or UTF-16 units. */
export function MaxChars(max: number): PropertyDecorator {
  return ValidateBy({
    name: 'maxChars',
    constraints: [max],
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || charLength(value) <= max,
      defaultMessage: (args) => `The ${label(args)} field must not be greater than ${max} characters.`,
    },
  });
}

/** `email`, for a string that is there. */
export function IsEmailAddress(): PropertyDecorator {
  return ValidateBy({
    name: 'isEmail',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || isEmailAddress(value),
      defaultMessage: (args) => `The ${label(args)} field must be a valid email address.`,
    },
  });
}

/** Mixed-typed fields: any JSON scalar or null; objects, arrays (and ±Infinity) are not. */
export function IsScalar(): PropertyDecorator {
  return ValidateBy({
    name: 'isScalar',
    validator: {
      validate: (value: unknown) => value === undefined || isJsonScalar(value),
      defaultMessage: (args) => `The ${label(args)} field must be a string, number, boolean or null.`,
    },
  });
}

/** Text PostgreSQL can store: no NUL character, no unpaired surrogate. */
export function IsStorable(): PropertyDecorator {
  return ValidateBy({
    name: 'isStorable',
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || isStorableText(value),
      defaultMessage: (args) => `The ${label(args)} field must not contain null characters or unpaired surrogates.`,
    },
  });
}

/** `in:a,b,c`: one of a fixed set of values (the same list the entity's and the migration's CHECK use). */
export function IsOneOf(values: readonly string[]): PropertyDecorator {
  return ValidateBy({
    name: 'isIn',
    constraints: [values],
    validator: {
      validate: (value: unknown) => absent(value) || (typeof value === 'string' && values.includes(value)),
      defaultMessage: (args) => `The selected ${label(args)} is invalid.`,
    },
  });
}

/** An ISO 8601 date and time with its offset (`2026-03-01T09:00:00Z`), for a timestamptz column. */
export function IsDateTime(): PropertyDecorator {
  return ValidateBy({
    name: 'isDateTime',
    validator: {
      validate: (value: unknown) =>
        absent(value) || (typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))),
      defaultMessage: (args) => `The ${label(args)} field must be a valid date and time with its offset.`,
    },
  });
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `uuid`: the id of another record (whether it exists, and is the enterprise's, the service checks). */
export function IsRecordId(): PropertyDecorator {
  return ValidateBy({
    name: 'isRecordId',
    validator: {
      validate: (value: unknown) => absent(value) || (typeof value === 'string' && isUuid(value)),
      defaultMessage: (args) => `The ${label(args)} field must be a valid UUID.`,
    },
  });
}
