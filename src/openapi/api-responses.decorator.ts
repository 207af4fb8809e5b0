import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtension,
  ApiExtraModels,
  ApiHeader,
  ApiParam,
  ApiQuery,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { ErrorSchema, ValidationErrorSchema } from './error.schema.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_CHARS,
  IdempotencyMessages,
} from '../idempotency/idempotency-key.js';
import { DataOf, ListOf, PageOf } from './envelope.schema.js';

/**
 * Response declarations of the routes. Only what a route itself decides is declared here; what
 * the global guards and Fastify decide (401, enterprise 403, 429, 500, body errors, rate-limit
 * headers, security) is added to every operation from the same metadata the guards read
 * (openapi-documents.ts).
 */

/** `{data: record}` */
export const ApiRecord = (record: Type, description: string, status = 200): MethodDecorator =>
  ApiResponse({ status, type: DataOf(record), description });

/** `{data: [records]}`, unpaginated. */
export const ApiList = (record: Type, description: string): MethodDecorator =>
  ApiResponse({ status: 200, type: ListOf(record), description });

/** `{data, links, meta}` and the `page` parameter. */
export const ApiPage = (record: Type, description: string): MethodDecorator =>
  applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      schema: { type: 'integer', minimum: 1, default: 1 },
      description: 'Page number, from 1. Missing, non-numeric or below 1 means 1; past the end gives an empty page.',
    }),
    ApiResponse({ status: 200, type: PageOf(record), description }),
    ApiResponse({ status: 400, type: ErrorSchema, description: REQUEST_ORIGIN_400 }),
  );

/** The 400 of a request whose links would be built from an invalid host or protocol. */
export const REQUEST_ORIGIN_400 =
  'Only without `APP_URL`: the links are built from the request, and its `Host` (with `TRUST_PROXY`, ' +
  `\`X-Forwarded-Host\`) is not a valid host name (\`${ErrorMessages.invalidHost}\`) or its ` +
  `\`X-Forwarded-Proto\` (with \`TRUST_PROXY\`) is not http or https (\`${ErrorMessages.invalidForwardedProto}\`).`;

/** The `{id}` path parameter and its 404 (checked after the enterprise header, before the body). */
export const ApiRecordId = (model: string): MethodDecorator =>
  applyDecorators(
    ApiParam({ name: 'id', description: `The ${model} UUID`, schema: { type: 'string' } }),
    ApiResponse({
      status: 404,
      type: ErrorSchema,
      description: `No such record, or the id is not a UUID: \`${ErrorMessages.recordNotFound(model, '<id>')}\``,
    }),
  );

/** 403 for a record of another enterprise (checked with the path id, before the body). */
export const ApiOtherEnterprise = (description = 'The record belongs to another enterprise.'): MethodDecorator =>
  ApiResponse({ status: 403, type: ErrorSchema, description });

/** Operation extension of a route that always answers 403; its value is the message. */
export const ALWAYS_FORBIDDEN = 'x-always-forbidden';

/**
 * A route the API does not offer (writes on read-only resources, deleting a lead, registering):
 * always 403 with `message` once the guards let the request through. Such routes are left out
 * of the served documents (openapi-documents.ts describes them once in the description); the
 * contract check still holds them to this 403.
 */
export const ApiDisabled = (message: string = ErrorMessages.forbidden): MethodDecorator =>
  applyDecorators(
    ApiExtension(ALWAYS_FORBIDDEN, message),
    ApiResponse({ status: 403, type: ErrorSchema, description: `Always \`${message}\`` }),
  );

/** 400 of a resource write's validation; malformed JSON is a 400 too, with a message only. */
export const ApiValidationFailure = (): MethodDecorator =>
  applyDecorators(
    ApiExtraModels(ValidationErrorSchema, ErrorSchema),
    ApiResponse({
      status: 400,
      description:
        `Validation failed: \`${ErrorMessages.invalidData}\` with the messages of each field ` +
        `(an invalid \`${IDEMPOTENCY_KEY_HEADER}\` header is reported under its name).`,
      schema: { oneOf: [{ $ref: getSchemaPath(ValidationErrorSchema) }, { $ref: getSchemaPath(ErrorSchema) }] },
    }),
  );

/** 422 `{message, errors}` of form validation (login, webhooks). */
export const ApiFormValidation = (description: string): MethodDecorator =>
  ApiResponse({ status: 422, type: ValidationErrorSchema, description });

/** Operation extension of a route that never reads the database; openapi-documents.ts removes it. */
export const NO_DATABASE = 'x-no-database';

/** The route never reads the database, so it cannot answer the 503 of an unreachable one. */
export const ApiWithoutDatabase = (): MethodDecorator => ApiExtension(NO_DATABASE, true);

/** Operation extension of a write that takes `Idempotency-Key`; openapi-documents.ts removes it. */
export const IDEMPOTENT_WRITE = 'x-idempotent-write';

/**
 * The optional `Idempotency-Key` header of a resource write and the 422 of a key used for another
 * request. The success answer's `Idempotent-Replayed` header is added by openapi-documents.ts.
 */
export const ApiIdempotentWrite = (): MethodDecorator =>
  applyDecorators(
    ApiExtension(IDEMPOTENT_WRITE, true),
    ApiHeader({
      name: IDEMPOTENCY_KEY_HEADER,
      required: false,
      description:
        'Makes the write safe to retry. A repeat of the same request (method, path and body; v2 after key ' +
        'normalisation) with the same key, by the same user in the same enterprise within 24 hours, writes ' +
        'nothing and answers the first answer again with `Idempotent-Replayed: true`; a repeat sent while the ' +
        'first is still running waits for it. 1 to 255 visible ASCII characters (400 otherwise); a UUID is a ' +
        'good key. A request refused with 400 is not remembered.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_CHARS, pattern: '^[\\x21-\\x7E]+$' },
    }),
    ApiResponse({
      status: 422,
      type: ValidationErrorSchema,
      description: `The \`${IDEMPOTENCY_KEY_HEADER}\` was already used for another request: \`${IdempotencyMessages.reused}\` Nothing was written.`,
    }),
  );
