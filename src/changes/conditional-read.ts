import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { apiVersionOf } from '../common/http/api-version.js';
import { encodingAskedFor } from '../common/http/compression.js';
import { entityTag, matchesIfNoneMatch, NotModifiedException } from '../common/http/conditional/entity-tag.js';
import { CachedPageAnswer } from '../common/http/conditional/page-cache.js';
import type { TenantResource } from '../resources/tenant-resource.js';
/** Operation extension read by the OpenAPI builder: ETag, If-None-Match and 304. */
export const ETAG_EXTENSION = 'x-etag';

/**
 * A conditional GET in progress: the reads hand it the version of what they are about to
 * present, read in the statement they make anyway (the list's total, the record's row), and it
 * answers 304 to an If-None-Match that still holds (by throwing, before anything else is read or
 * built) or sets the ETag. The version is read before the body is built, so a tag can be older
 * than its body (the next request gets a 200) but never newer (a 304 never hides a change).
 * A list page already kept under its tag is answered from the page cache the same way.
 */
export class Revalidation {
  constructor(
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly enterpriseId: string | undefined,
  ) {}

  /**
   * For a list page: told the version of the resource's records; the tag also holds the page
   * and the base URL of its links. None for a resource outside the change log.
   */
  list(resource: TenantResource, page: number, url: string): ((listVersion: string) => void) | undefined {
    const type = resource.changeType;
    if (type === undefined) return undefined;
    return (listVersion) => {
      const tag = this.settle([type, 'list', listVersion, String(page), url]);
      if (tag === undefined) return;
      const cache = this.request.server.pageCache;
      const kept = cache.get(tag);
      if (kept) throw new CachedPageAnswer(tag, cache.encoded(tag, kept, encodingAskedFor(this.request.headers)));
      if (cache.enabled) this.request.pageCacheTag = tag;
    };
  }

  /** For one record: told its version in the enterprise (none when it is not the enterprise's). */
  record(resource: TenantResource, id: string): ((recordVersion: string | undefined) => void) | undefined {
    const type = resource.changeType;
    if (type === undefined) return undefined;
    return (recordVersion) => {
      if (recordVersion !== undefined) this.settle([type, id.toLowerCase(), recordVersion]);
    };
  }

  /** The answer's tag, set on the reply; 304 when the client holds it already. */
  private settle(parts: readonly string[]): string | undefined {
    if (this.enterpriseId === undefined) return undefined;
    const tag = entityTag([apiVersionOf(this.request.url) ?? 'v2', this.enterpriseId, ...parts]);
    if (matchesIfNoneMatch(this.request.headers['if-none-match'], tag)) throw new NotModifiedException(tag);
    void this.reply.header('etag', tag);
    return tag;
  }
}

/** The request's Revalidation, for a route marked ConditionalRead. */
export const Conditional = createParamDecorator((_: unknown, context: ExecutionContext): Revalidation => {
  const http = context.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  return new Revalidation(request, http.getResponse<FastifyReply>(), request.enterpriseId);
});

/** Documents a list or retrieve route as answering conditional GETs (ETag, If-None-Match, 304). */
export const ConditionalRead = (): MethodDecorator => ApiExtension(ETAG_EXTENSION, true);
