import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Below this an answer goes out as it is. Measured (`npm run bench:compression`): one lead
 * (~300 bytes) saves about 70 bytes for 50-90 µs of CPU, well inside one packet either way;
 * from about 1 KB (4 leads) an answer shrinks to 40% and more, and a page of 100 to about 25%
 * (people pages, with their repeated nested keys, to about a tenth).
 */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Brotli or gzip when the client asks for them (`Accept-Encoding`), at brotli quality 4 (the
 * plugin's default: fast enough for the request path). A client that does not ask gets the very
 * same bytes and headers as without compression.
 */
export async function compressWhenAsked(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
  });
}
