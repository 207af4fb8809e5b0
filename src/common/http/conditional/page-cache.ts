import type { FastifyInstance, FastifyReply } from 'fastify';
import { LRUCache } from 'lru-cache';
import { compressBody, COMPRESSION_THRESHOLD_BYTES, markCompressed, type AnswerEncoding } from '../compression.js';
import { EarlyAnswer } from './early-answer.js';

/** The header value every list page is answered with (Fastify's own for a serialised object). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * List pages as they were last sent, under their ETag. A page's tag is made of everything its
 * bytes depend on (API version, enterprise, resource, page, base URL of its links and the list's
 * version, which every writer moves), so a page kept under a tag is the page any request reaching
 * that tag would build: a request whose tag is kept gets those bytes without its rows being read,
 * presented or serialised. The tag itself is still read per request, after the token, rate limit
 * and membership checks, so nothing is answered that the caller could not read.
 *
 * A page asked for compressed is compressed once per encoding and kept beside the plain bytes
 * (most HTTP clients ask for gzip by default), so a hit costs no compression either.
 *
 * Bounded by bytes (least recently used leave first); kept off the V8 heap as Buffers.
 */
export class PageCache {
  private readonly pages: LRUCache<string, Buffer> | undefined;

  constructor(maxBytes: number) {
    this.pages =
      maxBytes > 0
        ? new LRUCache<string, Buffer>({
            maxSize: maxBytes,
            sizeCalculation: (body, tag) => body.length + tag.length,
          })
        : undefined;
  }

  get enabled(): boolean {
    return this.pages !== undefined;
  }

  get(tag: string): Buffer | undefined {
    return this.pages?.get(tag);
  }

  /** Keeps an answer's body; one larger than the whole cache is not kept. */
  set(tag: string, body: Buffer): void {
    if (this.pages && body.length + tag.length <= this.pages.maxSize) this.pages.set(tag, body);
  }

  /**
   * A kept page as the client asked for it: the plain bytes (no encoding asked, or a page below
   * the compression threshold), or those bytes compressed, from the cache or compressed now and
   * kept under the tag and encoding.
   */
  encoded(tag: string, plain: Buffer, encoding: AnswerEncoding | undefined): EncodedPage {
    if (encoding === undefined || plain.length < COMPRESSION_THRESHOLD_BYTES) return { body: plain };
    const key = `${encoding} ${tag}`;
    let body = this.pages?.get(key);
    if (body === undefined) {
      body = compressBody(plain, encoding);
      this.set(key, body);
    }
    return { body, encoding };
  }

  /** Bytes held now. */
  get size(): number {
    return this.pages?.calculatedSize ?? 0;
  }
}

export interface EncodedPage {
  body: Buffer;
  /** Absent: the plain JSON. */
  encoding?: AnswerEncoding;
}

/**
 * Ends a list read whose page is kept, before its rows are read: 200 with the kept bytes and the
 * headers of its first answer (a compressed one marked as the compression plugin marks it, which
 * then leaves it alone).
 */
export class CachedPageAnswer extends EarlyAnswer {
  constructor(
    readonly tag: string,
    readonly page: EncodedPage,
  ) {
    super('OK', 200);
  }

  send(reply: FastifyReply): void {
    void reply.header('etag', this.tag).header('content-type', JSON_CONTENT_TYPE);
    if (this.page.encoding) markCompressed(reply, this.page.encoding);
    void reply.status(200).send(this.page.body);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    pageCache: PageCache;
  }
  interface FastifyRequest {
    /** Set on a list read whose page is not kept yet: the tag to keep its answer under. */
    pageCacheTag?: string;
  }
}

/**
 * Installs the cache and keeps every 200 list answer marked by its read. Registered before the
 * compression hook, so the kept bytes are the plain JSON a client that asks for no encoding gets
 * (the compressed variants are made from them on the first hit that asks).
 */
export function keepListPages(fastify: FastifyInstance, maxBytes: number): void {
  fastify.decorate('pageCache', new PageCache(maxBytes));
  if (!fastify.pageCache.enabled) return;
  fastify.decorateRequest('pageCacheTag', undefined);
  fastify.addHook('onSend', (request, reply, payload, done) => {
    const tag = request.pageCacheTag;
    // A page's body is a buffer of its own (serialiseJsonBody), never written to again.
    if (tag !== undefined && reply.statusCode === 200) {
      if (typeof payload === 'string') fastify.pageCache.set(tag, Buffer.from(payload));
      else if (Buffer.isBuffer(payload)) fastify.pageCache.set(tag, payload);
    }
    done(null, payload);
  });
}
