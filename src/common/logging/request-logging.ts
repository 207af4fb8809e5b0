import type { FastifyInstance } from 'fastify';

/**
 * One JSON line per answered request, at info: its id, method and path, the status and the time
 * taken (the serializers of logger-options.ts keep nothing else: no headers, no query string, no
 * body). Health checks are left out: a load balancer polls them.
 */
export function logRequests(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.routeOptions.url !== '/health') {
      request.log.info(
        {
          req: request,
          res: reply,
          responseTime: reply.elapsedTime,
        },
        'request completed',
      );
    }
    done();
  });
}
