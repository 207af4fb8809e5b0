import type { ValidationError } from 'class-validator';
import type { FieldErrors } from './validation-failed.exception.js';

/** Constraints that, when failed, are the only message for their field (as Laravel stops). */
const DECISIVE = ['isDefined', 'isNotEmpty', 'isString'];

/**
 * class-validator's errors as Laravel's `errors` map: field name to messages. A missing or
 * mistyped field reports that alone; otherwise every failed rule in declaration order.
 */
export function laravelErrors(errors: ValidationError[], prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors) {
    const field = `${prefix}${error.property}`;
    const constraints = error.constraints ?? {};
    const decisive = DECISIVE.find((name) => constraints[name] !== undefined);
    const messages = decisive ? [constraints[decisive] ?? ''] : Object.values(constraints);
    if (messages.length > 0) out[field] = [...new Set(messages)];
    if (error.children?.length) Object.assign(out, laravelErrors(error.children, `${field}.`));
  }
  return out;
}
