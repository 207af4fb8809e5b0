import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';

export const OPERATION_ID = 'finance-intake:operation-id';

/**
 * Names an operation in the documents. `{resource}` stands for the controller's resource
 * (`People` for PeopleController), for routes a base class gives several controllers.
 */
export function Operation(id: string, summary: string, description: string): MethodDecorator {
  return applyDecorators(SetMetadata(OPERATION_ID, id), ApiOperation({ summary, description }));
}
