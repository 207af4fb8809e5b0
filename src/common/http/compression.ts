import { brotliCompressSync, constants, gzipSync, type BrotliOptions } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import negotiate from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Below this an answer goes out as it is. Measured (`npm run bench:compression`): one lead
 * (~300 bytes) saves about 70 bytes for 50-90 µs of CPU, well inside one packet either way;
 * from about 1 KB (4 leads) an answer shrinks to 40% and more, and a page of 100 to about 25%
 * (people pages, with their repeated nested keys, to about a tenth).
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** The encodings offered, in the server's order of preference. */
const ENCODINGS: AnswerEncoding[] = ['br', 'gzip'];
export type AnswerEncoding = 'br' | 'gzip';

/** Brotli quality 4 (the plugin's own default, named here so a kept page is compressed alike). */
const BROTLI_OPTIONS: BrotliOptions = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

/**
 * Brotli or gzip when the client asks for them (`Accept-Encoding`), at brotli quality 4 (fast
 * enough for the request path). A client that does not ask gets the very same bytes and headers
 * as without compression.
 */
export async function compressWhenAsked(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCompress, {
    global: true,
    encodings: ENCODINGS,
    threshold: COMPRESSION_THRESHOLD_BYTES,
    brotliOptions: BROTLI_OPTIONS,
  });
}

/**
 * The encoding the compression plugin would choose for a JSON answer of at least the threshold,
 * for answers that are compressed outside it (a kept list page): `x-no-compression` asks for
 * none, `*` and `x-gzip` mean gzip, and `Accept-Encoding` is negotiated by the same library.
 */
export function encodingAskedFor(headers: IncomingHttpHeaders): AnswerEncoding | undefined {
  const header = headers['accept-encoding'];
  if (header === undefined || headers['x-no-compression'] !== undefined) return undefined;
  const asked = header.toLowerCase().replace(/\*|x-gzip/gu, 'gzip');
  return negotiate(asked, ENCODINGS) ?? undefined;
}

/** A body compressed as the plugin would compress it. */
export function compressBody(body: Buffer, encoding: AnswerEncoding): Buffer {
  return encoding === 'br' ? brotliCompressSync(body, BROTLI_OPTIONS) : gzipSync(body);
}

/** The headers the plugin gives a compressed answer: its encoding, and `accept-encoding` added to `Vary`. */
export function markCompressed(reply: FastifyReply, encoding: AnswerEncoding): void {
  const vary = reply.getHeader('vary');
  const values = vary === undefined ? [] : Array.isArray(vary) ? vary : [String(vary)];
  if (!values.some((v) => v.includes('accept-encoding'))) {
    void reply.header('vary', [...values, 'accept-encoding'].join(', '));
  }
  void reply.header('content-encoding', encoding);
}
