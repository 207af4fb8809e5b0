import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * Every answer names its request: `X-Request-Id` is the request's id, the one its log line
 * carries (the client's own when it is a plain token, else a new UUID: `requestId` in
 * logger-options.ts), so a support question can point at the request. A hostile value (too
 * long, control characters) was never taken as the id, so it is never echoed.
 */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
