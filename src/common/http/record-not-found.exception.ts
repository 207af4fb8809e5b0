import { NotFoundException } from '@nestjs/common';
import { ErrorMessages } from './error-messages.js';

/** 404 for a record absent within the authenticated enterprise (R10 text). */
export class RecordNotFoundException extends NotFoundException {
  constructor(model: string, id: string) {
    super({ message: ErrorMessages.recordNotFound(model, id) });
  }
}
