import type { FastifyInstance } from 'fastify';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from './api-exception.filter.js';
import { ErrorMessages } from './error-messages.js';

/** Bodies above this size (or of unknown size: chunked) count as large. */
export const LARGE_BODY_BYTES = 256 * 1024;
/** Large bodies read and handled at once, per process. */
export const LARGE_BODIES_AT_ONCE = 4;

/**
 * Fastify parses a body before any guard runs, and a 1 MiB JSON body of small objects takes
 * about 20 MB of heap once parsed. With the heap capped at 192 MiB (`npm start`), a handful of
 * such bodies at once, sent without a token, could exhaust it and end the process. The API's
 * own bodies are a few kilobytes, so at most a few large ones are taken at a time; the others
 * get the 503 of a busy service with `Retry-After` before a byte of their body is read.
 */
export function limitLargeBodies(fastify: FastifyInstance): void {
  let inFlight = 0;
  fastify.addHook('onRequest', (request, reply, done) => {
    const length = Number(request.headers['content-length']);
    const chunked = request.headers['transfer-encoding'] !== undefined;
    if (!chunked && !(length > LARGE_BODY_BYTES)) return done();
    if (inFlight >= LARGE_BODIES_AT_ONCE) {
      void reply
        .code(503)
        .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
        .header('connection', 'close')
        .send({ message: ErrorMessages.serviceUnavailable });
      return;
    }
    inFlight += 1;
    let released = false;
    // 'close' follows the end of the answer and an aborted upload alike.
    reply.raw.once('close', () => {
      if (released) return;
      released = true;
      inFlight -= 1;
    });
    done();
  });
}
