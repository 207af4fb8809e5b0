import { Delete, ForbiddenException, Patch, Post, Put } from '@nestjs/common';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiDisabled } from '../openapi/api-responses.decorator.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { AnyTokenAbility } from '../common/access/required-access.js';

const WRITE_REFUSED = '{resource} are read-only through the API: every write answers 403.';

function forbidden(): never {
  throw new ForbiddenException({ message: ErrorMessages.forbidden });
}

/**
 * Write methods on every path of a read-only resource answer 403, after authentication
 * and the enterprise check (the global guards run first), to every token alike. Controllers of read-only resources
 * extend this class; the routes are inherited.
 */
export abstract class ReadOnlyRoutes {
  @Post()
  @AnyTokenAbility()
  @Operation('create{resource}', 'Create (not available)', WRITE_REFUSED)
  @ApiDisabled()
  createIsForbidden(): never {
    return forbidden();
  }
  @Put()
  @AnyTokenAbility()
  @Operation('replaceAll{resource}', 'Replace all (not available)', WRITE_REFUSED)
  @ApiDisabled()
  replaceAllIsForbidden(): never {
    return forbidden();
  }
  @Patch()
  @AnyTokenAbility()
  @Operation('updateAll{resource}', 'Update all (not available)', WRITE_REFUSED)
  @ApiDisabled()
  updateAllIsForbidden(): never {
    return forbidden();
  }
  @Delete()
  @AnyTokenAbility()
  @Operation('deleteAll{resource}', 'Delete all (not available)', WRITE_REFUSED)
  @ApiDisabled()
  deleteAllIsForbidden(): never {
    return forbidden();
  }
  @Post(':id')
  @AnyTokenAbility()
  @Operation('post{resource}Record', 'Post to a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  postRecordIsForbidden(): never {
    return forbidden();
  }
  @Put(':id')
  @AnyTokenAbility()
  @Operation('replace{resource}Record', 'Replace a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  replaceIsForbidden(): never {
    return forbidden();
  }
  @Patch(':id')
  @AnyTokenAbility()
  @Operation('update{resource}Record', 'Update a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  updateIsForbidden(): never {
    return forbidden();
  }
  @Delete(':id')
  @AnyTokenAbility()
  @Operation('delete{resource}Record', 'Delete a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  deleteIsForbidden(): never {
    return forbidden();
  }
}
