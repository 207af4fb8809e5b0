import type { FastifyInstance } from 'fastify';

/** Health checks and probes are left out: load balancers and orchestrators poll them. */
const UNLOGGED_ROUTES = new Set(['/health', '/health/live', '/health/ready']);

/**
 * One JSON line per answered request, at info: its id, method and path, the status and the time
 * taken (the serializers of logger-options.ts keep nothing else: no headers, no query string, no
 * body), and who made it once known: the user's id (never the token) and the enterprise the
 * enterprise guard admitted.
 */
export function logRequests(fastify: FastifyInstance): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    if (!UNLOGGED_ROUTES.has(request.routeOptions.url ?? '')) {
      request.log.info(
        {
          req: request,
          res: reply,
          responseTime: reply.elapsedTime,
          userId: request.user?.id,
          enterpriseId: request.enterpriseId,
        },
        'request completed',
      );
    }
    done();
  });
}
