import type { FastifyInstance } from 'fastify';

export const WEBHOOK_PATH_PREFIX = '/api/webhooks/';
const RAW_CONTENT_TYPE = 'application/x-finance-intake-webhook';

/**
 * Webhook signatures cover the exact bytes received, and both receivers check the
 * signature before the JSON, so webhook bodies must reach the receivers unparsed whatever their
 * content type. Requests to the webhook paths are routed to a parser that keeps the Buffer; the
 * body limit still applies.
 */
export function keepRawWebhookBodies(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.url.startsWith(WEBHOOK_PATH_PREFIX)) request.headers['content-type'] = RAW_CONTENT_TYPE;
    done();
  });
  fastify.addContentTypeParser(RAW_CONTENT_TYPE, { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}
