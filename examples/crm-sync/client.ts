import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/v2.js';

export type Api = Client<paths>;

/**
 * How the documents write a list in the query (`style: form`, `explode: false`): the change
 * feed's `types: ['lead', 'person']` is sent as `types=lead,person`. openapi-fetch does not read
 * the style from the document, so it is given here once.
 */
const querySerializer = { array: { style: 'form', explode: false } } as const;

/** A client without credentials: for logging in. */
export function anonymousClient(baseUrl: string): Api {
  return createClient<paths>({ baseUrl, querySerializer });
}

/**
 * A client that sends the token on every request and the enterprise header too once one is
 * given (the two security schemes of the document; the enterprise calls need only the token).
 */
export function authorisedClient(baseUrl: string, token: string, enterpriseId?: string): Api {
  return createClient<paths>({
    baseUrl,
    querySerializer,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(enterpriseId === undefined ? {} : { 'X-Enterprise-Id': enterpriseId }),
    },
  });
}

/** The message of an error answer, for a failure that says what the service said. */
export function failure(what: string, response: Response, error: unknown): Error {
  const message =
    typeof error === 'object' && error !== null && 'message' in error ? String(error.message) : 'no message';
  return new Error(`${what}: ${response.status} ${message}`);
}
