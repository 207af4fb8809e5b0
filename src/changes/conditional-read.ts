import { applyDecorators, createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiVersionOf } from '../common/http/api-version.js';
import { entityTag, matchesIfNoneMatch, NotModifiedException } from '../common/http/conditional/entity-tag.js';
import type { ChangeType } from './change-types.js';

const CONDITIONAL_TYPE = 'finance-intake:conditional-type';
/** Operation extension read by the OpenAPI builder: ETag, If-None-Match and 304. */
export const ETAG_EXTENSION = 'x-etag';

/**
 * A conditional GET in progress: the reads hand it the version of what they are about to
 * present, read in the statement they make anyway (the list's total, the record's row), and it
 * answers 304 to an If-None-Match that still holds (by throwing, before anything else is read or
 * built) or sets the ETag. The version is read before the body is built, so a tag can be older
 * than its body (the next request gets a 200) but never newer (a 304 never hides a change).
 */
export class Revalidation {
  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly enterpriseId: string | undefined,
  ) {}

  /** For a list page: the type's version, the page and the base URL of its links. */
  list(type: ChangeType, page: number, url: string): (listVersion: string) => void {
    return (listVersion) => this.settle([type, 'list', listVersion, String(page), url]);
  }

  /** For one record: its version in the enterprise, none when it is not the enterprise's. */
  record(type: ChangeType, id: string): (recordVersion: string | undefined) => void {
    return (recordVersion) => {
      if (recordVersion !== undefined) this.settle([type, id.toLowerCase(), recordVersion]);
    };
  }

  private settle(parts: readonly string[]): void {
    if (this.enterpriseId === undefined) return;
    const tag = entityTag([apiVersionOf(this.request.url) ?? 'v2', this.enterpriseId, ...parts]);
    if (matchesIfNoneMatch(this.request.headers['if-none-match'], tag)) throw new NotModifiedException(tag);
    void this.reply.header('etag', tag);
  }
}

/** The request's Revalidation, for a route marked ConditionalRead. */
export const Conditional = createParamDecorator((_: unknown, context: ExecutionContext): Revalidation => {
  const http = context.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  return new Revalidation(request, http.getResponse<FastifyReply>(), request.enterpriseId);
});

/** Marks a list or retrieve route of `type` as answering conditional GETs (documented as such). */
export const ConditionalRead = (type: ChangeType): MethodDecorator =>
  applyDecorators(SetMetadata(CONDITIONAL_TYPE, type), ApiExtension(ETAG_EXTENSION, true));
