import { UnauthorizedException } from '@nestjs/common';
import { FormValidationException } from '../common/http/validation-failed.exception.js';

export const INVALID_SIGNATURE = 'Invalid signature.';

export class InvalidSignatureException extends UnauthorizedException {
  constructor() {
    super({ message: INVALID_SIGNATURE });
  }
}

/** 422 `{message, errors}` for a payload the receiver cannot act on. */
export function unusablePayload(field: string, message: string): FormValidationException {
  return new FormValidationException({ [field]: [message] });
}
