import { ForbiddenException } from '@nestjs/common';
import { existsInAnyEnterprise } from '../../database/record-elsewhere.js';
import type { SqlExecutor } from '../../database/sql.js';
import { ErrorMessages } from './error-messages.js';
import { RecordNotFoundException } from './record-not-found.exception.js';

/** The answer to a record the caller's enterprise does not have: 403 when another has it, else 404. */
export async function refuseRecordNotOwned(db: SqlExecutor, table: string, model: string, id: string): Promise<never> {
  if (await existsInAnyEnterprise(db, table, id)) throw new ForbiddenException({ message: ErrorMessages.forbidden });
  throw new RecordNotFoundException(model, id);
}
