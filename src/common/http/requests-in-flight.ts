import type { FastifyInstance } from 'fastify';

/** How many requests this process is serving right now. */
export interface RequestsInFlight {
  readonly current: number;
}

/**
 * Counts the requests from their first hook to the end of their answer (or the client going
 * away), so background work of the process can tell a burst of requests from a quiet moment.
 */
export function countRequestsInFlight(fastify: FastifyInstance): RequestsInFlight {
  let current = 0;
  fastify.addHook('onRequest', (_request, reply, done) => {
    current += 1;
    // 'close' follows the end of the answer and an aborted request alike, as for the bulkhead.
    reply.raw.once('close', () => (current -= 1));
    done();
  });
  return {
    get current() {
      return current;
    },
  };
}
