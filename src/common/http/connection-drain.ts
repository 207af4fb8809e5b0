import type { FastifyInstance } from 'fastify';

/**
 * Graceful shutdown with keep-alive clients. Closing the server stops new connections and closes
 * the idle ones, but a connection busy at that moment would stay open after its answer (keep-alive,
 * 72 s), so the process could not exit. From the start of the close on, every answer says
 * `Connection: close`: the requests in flight finish and are answered, then their connections
 * close. Requests that arrive after that get Fastify's 503 with `Connection: close`.
 */
export function closeConnectionsWhenDraining(fastify: FastifyInstance): void {
  let draining = false;
  fastify.addHook('preClose', (done) => {
    draining = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) void reply.header('connection', 'close');
    done(null, payload);
  });
}
