import type { FastifyInstance } from 'fastify';

/** Health checks and probes are left out: load balancers and orchestrators poll them. */
const UNLOGGED_ROUTES = new Set(['/health', '/health/live', '/health/ready']);

const LOGIN_ROUTES = new Set(['/api/v1/login', '/api/v2/login']);

/**
 * One JSON line per answered request, at info: its id, method and path, the status and the time
 * taken (the serializers of logger-options.ts keep nothing else: no headers, no query string, no
 * body), and who made it once known: the user's id (never the token) and the enterprise the
 * enterprise guard admitted, and the client's address (`req.remoteAddress`: the socket's, or the
 * one X-Forwarded-For names when TRUST_PROXY is set). A refused login gets a warning of its own
 * with that address (never the email or password), for whoever watches for password guessing.
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
      if (reply.statusCode === 401 && LOGIN_ROUTES.has(request.routeOptions.url ?? '')) {
        request.log.warn({ req: request }, 'login failed');
      }
    }
    done();
  });
}
