import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import { onlyReads } from './read-methods.js';

/**
 * Calls `then` once a write (any method but GET, HEAD, OPTIONS) has been answered without an
 * error: whatever it changed is committed by then. The hook is given to the routes that take a
 * write method only (as they are registered, so call this before the routes are), so reads, the
 * hot path, run no hook for it.
 */
export function afterSuccessfulWrites(fastify: FastifyInstance, then: () => void): void {
  const hook: onResponseHookHandler = (request, reply, done) => {
    if (!onlyReads(request.method) && reply.statusCode < 400) then();
    done();
  };
  fastify.addHook('onRoute', (route) => {
    if ([route.method].flat().every((method) => onlyReads(method))) return;
    const own = route.onResponse;
    route.onResponse = own === undefined ? [hook] : [...[own].flat(), hook];
  });
}
