import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtension, ApiExtraModels, ApiParam, ApiQuery, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ErrorSchema, ValidationErrorSchema } from '../common/http/error.schema.js';
import { ErrorMessages } from '../common/http/error-messages.js';
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

/** `{data: [records]}`, unpaginated (R8). */
export const ApiList = (record: Type, description: string): MethodDecorator =>
  ApiResponse({ status: 200, type: ListOf(record), description });

/** `{data, links, meta}` and the `page` parameter (R7). */
export const ApiPage = (record: Type, description: string): MethodDecorator =>
  applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      schema: { type: 'integer', minimum: 1, default: 1 },
      description: 'Page number, from 1. Missing, non-numeric or below 1 means 1; past the end gives an empty page.',
    }),
    ApiResponse({ status: 200, type: PageOf(record), description }),
  );

/** The `{id}` path parameter and its 404 (R9 step 6). */
export const ApiRecordId = (model: string): MethodDecorator =>
  applyDecorators(
    ApiParam({ name: 'id', description: `The ${model} UUID`, schema: { type: 'string' } }),
    ApiResponse({
      status: 404,
      type: ErrorSchema,
      description: `No such record, or the id is not a UUID: \`${ErrorMessages.recordNotFound(model, '<id>')}\``,
    }),
  );

/** 403 for a record of another enterprise (R9 step 6). */
export const ApiOtherEnterprise = (description = 'The record belongs to another enterprise.'): MethodDecorator =>
  ApiResponse({ status: 403, type: ErrorSchema, description });

/**
 * A write the API does not offer (R11): always 403 once the caller is authenticated. Marked
 * `x-always-forbidden`, the one reason the OpenAPI lint accepts an operation without a 2xx.
 */
export const ApiDisabled = (
  description = `Always \`${ErrorMessages.forbidden}\`: read-only through the API (R11).`,
): MethodDecorator =>
  applyDecorators(
    ApiExtension('x-always-forbidden', true),
    ApiResponse({ status: 403, type: ErrorSchema, description }),
  );

/** 400 of lead validation (R10); malformed JSON is a 400 too, with a message only. */
export const ApiLeadValidation = (): MethodDecorator =>
  applyDecorators(
    ApiExtraModels(ValidationErrorSchema, ErrorSchema),
    ApiResponse({
      status: 400,
      description: `Validation failed: \`${ErrorMessages.invalidData}\` with the messages of each field.`,
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
