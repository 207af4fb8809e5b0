import { Injectable, type PipeTransform } from '@nestjs/common';
import { RecordNotFoundException } from './record-not-found.exception.js';
import { isUuid } from '../../database/uuid.js';

/** A path id that is not a UUID cannot name a record: 404, no query made. */
@Injectable()
export class RecordIdPipe implements PipeTransform<string, string> {
  constructor(private readonly model: string) {}

  transform(value: string): string {
    if (!isUuid(value)) throw new RecordNotFoundException(this.model, value);
    return value.toLowerCase();
  }
}
