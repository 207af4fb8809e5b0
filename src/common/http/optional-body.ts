import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';

interface OptionalBodyConfig {
  readonly optionalBody?: boolean;
}

/**
 * Marks a route whose body is optional (it reads none): a client that sends
 * `Content-Type: application/json` with no body at all gets the route's answer, not the 400
 * Fastify's JSON parser gives an empty body.
 */
export const OptionalBody = (): MethodDecorator => RouteConfig({ optionalBody: true } satisfies OptionalBodyConfig);

/**
 * A body of no bytes is no body: the content type that came with it is dropped before parsing
 * (`Content-Length: 0`, or neither a length nor chunks, as curl sends a POST without `-d`).
 */
const dropTypeOfEmptyBody: onRequestHookHandler = (request, _reply, done) => {
  const length = request.headers['content-length'];
  const empty = length === '0' || (length === undefined && request.headers['transfer-encoding'] === undefined);
  if (empty) delete request.headers['content-type'];
  done();
};

/** Gives the routes marked with OptionalBody their hook (no other route pays for it). */
export function acceptEmptyBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    // A route declared without any config has none (the type says otherwise).
    const config: OptionalBodyConfig | undefined = route.config;
    if (config?.optionalBody !== true) return;
    const own = route.onRequest;
    route.onRequest = own === undefined ? [dropTypeOfEmptyBody] : [dropTypeOfEmptyBody, ...[own].flat()];
  });
}
