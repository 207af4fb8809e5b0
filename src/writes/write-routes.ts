import { applyDecorators, Post, Put, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiResponse } from '@nestjs/swagger';
import { V2KeyNormaliserInterceptor } from '../common/casing/v2-key-normaliser.interceptor.js';
import type { ApiVersion } from '../common/http/api-version.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import {
  ApiIdempotentWrite,
  ApiOtherEnterprise,
  ApiRecord,
  ApiRecordId,
  ApiValidationFailure,
} from '../openapi/api-responses.decorator.js';
import { schemaOf } from '../openapi/resource-schemas.js';
import type { JsonSchema } from '../openapi/validation-schema.js';
import { writeAbility, type TenantResource } from '../resources/tenant-resource.js';
import { recordWriteAccess } from './write-access.guard.js';
import { RequiresAbility } from '../common/access/required-access.js';

/** How the documents name one record: `Lead` -> `a lead`, `WebhookEndpoint` -> `a webhook endpoint`. */
export function recordNoun(model: string): { readonly noun: string; readonly withArticle: string } {
  const noun = model.replace(/(?<=[a-z0-9])([A-Z])/g, ' $1').toLowerCase();
  return { noun, withArticle: `${/^[aeiou]/.test(noun) ? 'an' : 'a'} ${noun}` };
}

/** Decorators applied as if written one above the other (the last one first, as TypeScript does). */
function stacked(...decorators: (MethodDecorator | ClassDecorator)[]): MethodDecorator {
  return applyDecorators(...decorators.reverse());
}

export interface WriteRouteOptions {
  /** The operation's description; the default says what the route does in the resource's words. */
  readonly description?: string;
  /** v1 legacy: the updated record itself rather than `{data: record}` (the route returns a `BareRecord`). */
  readonly bare?: { readonly description: string };
}

/**
 * `POST /{path}` of a writable version: the route, the key normaliser of a v2 body, and the
 * documentation (operation `create{Model}`, the request schema from the input class, 201 with
 * the record, the validation 400, `Idempotency-Key`).
 */
export function CreateRoute(
  resource: TenantResource,
  version: ApiVersion,
  input: JsonSchema,
  options: WriteRouteOptions = {},
): MethodDecorator {
  const { withArticle, noun } = recordNoun(resource.model);
  return stacked(
    Post(),
    RequiresAbility(writeAbility(resource)),
    ...(version === 'v2' ? [UseInterceptors(V2KeyNormaliserInterceptor)] : []),
    Operation(
      `create${resource.model}`,
      `Create ${withArticle}`,
      options.description ?? `Creates ${withArticle} in the header's enterprise.`,
    ),
    ApiBody({ schema: input }),
    ApiRecord(schemaOf(resource), `The created ${noun}.`, 201),
    ApiValidationFailure(),
    ApiIdempotentWrite(),
  );
}

/**
 * `PUT /{path}/{id}` of a writable version: the route, the record's access check (404, then 403
 * for another enterprise's record, before the body is read), the v2 key normaliser and the
 * documentation (operation `update{Model}`, absent fields stay unchanged).
 */
export function UpdateRoute(
  resource: TenantResource,
  version: ApiVersion,
  input: JsonSchema,
  options: WriteRouteOptions = {},
): MethodDecorator {
  const { withArticle, noun } = recordNoun(resource.model);
  return stacked(
    Put(':id'),
    RequiresAbility(writeAbility(resource)),
    UseGuards(recordWriteAccess(resource)),
    ...(version === 'v2' ? [UseInterceptors(V2KeyNormaliserInterceptor)] : []),
    Operation(
      `update${resource.model}`,
      `Update ${withArticle}`,
      options.description ?? 'Absent fields stay unchanged.',
    ),
    ApiBody({ schema: input }),
    options.bare
      ? ApiResponse({ status: 200, type: schemaOf(resource), description: options.bare.description })
      : ApiRecord(schemaOf(resource), `The updated ${noun}.`),
    ApiRecordId(resource.model),
    ApiOtherEnterprise(),
    ApiValidationFailure(),
    ApiIdempotentWrite(),
  );
}
