import { CHANGE_ACTIONS, CHANGE_TYPES, type ChangeType } from '../changes/change-types.js';

type JsonObject = Record<string, unknown>;

/** The feed entry's schema of a type, as the change feed names it (`PersonChange`). */
const entryRef = (type: ChangeType): JsonObject => ({
  $ref: `#/components/schemas/${type[0]?.toUpperCase() ?? ''}${type.slice(1)}Change`,
});

const header = (name: string, description: string, example: string): JsonObject => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

/**
 * The v2 document's `webhooks` (OpenAPI 3.1): the event the service POSTs to a webhook endpoint,
 * signed as Standard Webhooks. Its `data` is exactly the v2 change feed entry.
 */
export function outboundWebhooks(): JsonObject {
  return {
    changeEvent: {
      post: {
        operationId: 'receiveChangeEvent',
        summary: 'A change pushed to a webhook endpoint',
        description:
          'What the service POSTs to each enabled webhook endpoint, one change at a time, in the feed’s order. ' +
          'Changes of one record not delivered yet merge into one event at its latest state. Verify the ' +
          'signature over the raw body with the endpoint’s `whsec_` secret (any Standard Webhooks library) ' +
          'before parsing it; keep the `webhook-id`s handled for a few days and drop repeats.',
        tags: ['Webhook endpoints'],
        // The receiver authenticates the request by its signature, not by a scheme of this API.
        security: [],
        // What the receiver answers is its own: any status other than a 2xx is a failure.
        'x-no-client-errors': true,
        parameters: [
          header('webhook-id', 'The same on every retry of this event', 'msg_p5jXN8AQM9LWM0D4loKWxJek'),
          header('webhook-timestamp', 'Unix seconds of this attempt', '1769850900'),
          header(
            'webhook-signature',
            '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, two space-separated during a rotation',
            'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
          ),
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['type', 'timestamp', 'data'],
                properties: {
                  type: {
                    type: 'string',
                    enum: CHANGE_TYPES.flatMap((type) => CHANGE_ACTIONS.map((action) => `${type}.${action}`)),
                    description: '`<record type>.<action>`',
                  },
                  timestamp: {
                    type: 'string',
                    format: 'date-time',
                    description: 'When the change was made (the entry’s `changed_at`)',
                  },
                  data: { oneOf: CHANGE_TYPES.map(entryRef), description: 'The v2 change feed entry' },
                },
              },
            },
          },
        },
        responses: {
          '200': { description: 'Acknowledged: any 2xx within 10 seconds (200, 202, 204, ...).' },
          default: {
            description:
              'Anything else (an error status, a redirect, no answer within 10 seconds) is a failed attempt, ' +
              'retried with backoff with the same `webhook-id`.',
          },
        },
      },
    },
  };
}
