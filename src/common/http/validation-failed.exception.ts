import { BadRequestException, UnprocessableEntityException } from '@nestjs/common';
import { ErrorMessages } from './error-messages.js';

export type FieldErrors = Record<string, string[]>;

/** Laravel's summary: the first message, then how many more messages (not fields) follow. */
export function summariseErrors(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  const [first = ErrorMessages.invalidData] = all;
  const more = all.length - 1;
  if (more <= 0) return first;
  return `${first} (and ${more} more ${more === 1 ? 'error' : 'errors'})`;
}

/** 422 `{message, errors}` of form-request validation (login). */
export class FormValidationException extends UnprocessableEntityException {
  constructor(readonly errors: FieldErrors) {
    super({ message: summariseErrors(errors), errors });
  }
}

/** 400 `{message: 'The given data was invalid.', errors}` of a resource write's validation (and of `Idempotency-Key`). */
export class ResourceValidationException extends BadRequestException {
  constructor(readonly errors: FieldErrors) {
    super({ message: ErrorMessages.invalidData, errors });
  }
}
