import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './metrics.js';

/** Every answered request is timed under its route template (`/api/v2/leads/:id`), never its URL. */
export function measureRequests(fastify: FastifyInstance, metrics: ServiceMetrics): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
