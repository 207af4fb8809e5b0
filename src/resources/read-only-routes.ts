import { Delete, ForbiddenException, Patch, Post, Put } from '@nestjs/common';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiDisabled } from '../openapi/api-responses.decorator.js';
import { ErrorMessages } from '../common/http/error-messages.js';

const WRITE_REFUSED = '{resource} are read-only through the API: every write answers 403.';

function forbidden(): never {
  throw new ForbiddenException({ message: ErrorMessages.forbidden });
}

/**
 * Write methods on every path of a read-only resource answer 403, after authentication
 * and the enterprise check (the global guards run first). Controllers of read-only resources
 * extend this class; the routes are inherited.
 */
export abstract class ReadOnlyRoutes {
  @Post()
  @Operation('create{resource}', 'Create (not available)', WRITE_REFUSED)
  @ApiDisabled()
  createIsForbidden(): never {
    return forbidden();
  }
  @Put()
  @Operation('replaceAll{resource}', 'Replace all (not available)', WRITE_REFUSED)
  @ApiDisabled()
  replaceAllIsForbidden(): never {
    return forbidden();
  }
  @Patch()
  @Operation('updateAll{resource}', 'Update all (not available)', WRITE_REFUSED)
  @ApiDisabled()
  updateAllIsForbidden(): never {
    return forbidden();
  }
  @Delete()
  @Operation('deleteAll{resource}', 'Delete all (not available)', WRITE_REFUSED)
  @ApiDisabled()
  deleteAllIsForbidden(): never {
    return forbidden();
  }
  @Post(':id')
  @Operation('post{resource}Record', 'Post to a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  postRecordIsForbidden(): never {
    return forbidden();
  }
  @Put(':id')
  @Operation('replace{resource}Record', 'Replace a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  replaceIsForbidden(): never {
    return forbidden();
  }
  @Patch(':id')
  @Operation('update{resource}Record', 'Update a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  updateIsForbidden(): never {
    return forbidden();
  }
  @Delete(':id')
  @Operation('delete{resource}Record', 'Delete a record (not available)', WRITE_REFUSED)
  @ApiDisabled()
  deleteIsForbidden(): never {
    return forbidden();
  }
}
