import type { FastifyInstance } from 'fastify';
import { onlyReads } from './read-methods.js';

/**
 * Calls `then` once a write (any method but GET, HEAD, OPTIONS) has been answered without an
 * error: whatever it changed is committed by then.
 */
export function afterSuccessfulWrites(fastify: FastifyInstance, then: () => void): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    if (!onlyReads(request.method) && reply.statusCode < 400) then();
    done();
  });
}
