import { NotFoundException } from '@nestjs/common';
import { ErrorMessages } from './error-messages.js';

/** 404 for a record absent within the authenticated enterprise (`No query results for model [Lead] <id>`). */
export class RecordNotFoundException extends NotFoundException {
  constructor(model: string, id: string) {
    super({ message: ErrorMessages.recordNotFound(model, id) });
  }
}
