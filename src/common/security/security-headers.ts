import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's headers for every JSON answer. The API only ever answers JSON, so its content
 * security policy allows nothing to load and nothing to frame it (OWASP's REST
 * recommendation); helmet's other defaults stay (nosniff, HSTS, no-referrer, same-origin
 * resource and opener policies). `X-Frame-Options` is DENY for the same reason.
 */
export const API_SECURITY: HelmetOptions = {
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
};

/**
 * Routes outside the JSON API (an HTML page such as the API docs) get helmet's default policy
 * instead, which lets a page load its own scripts, styles and images. Without
 * `upgrade-insecure-requests`: the service may be reached over plain HTTP on a developer machine.
 * No page of the service is meant to be framed either: `X-Frame-Options: DENY` everywhere.
 */
export const PAGE_SECURITY: HelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: true,
    directives: { upgradeInsecureRequests: null, frameAncestors: ["'none'"] },
  },
  frameguard: { action: 'deny' },
};

/**
 * The headers helmet's middleware sets for these options, computed once. With no function-valued
 * directive (none is used) they depend on nothing in the request, and running helmet's
 * middleware on every request cost more than half of a lead retrieve's framework time (issue 9).
 */
export function helmetHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: number | string | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return recorder;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error instanceof Error) throw error;
    if (error !== undefined) throw new Error('helmet refused its options');
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously: its headers cannot be precomputed');
  return Object.freeze(headers);
}

/** The strict set; also set where an answer bypasses the hooks (a path Fastify cannot decode). */
export const API_SECURITY_HEADERS = helmetHeaders(API_SECURITY);
const PAGE_SECURITY_HEADERS = helmetHeaders(PAGE_SECURITY);

function servesJsonOnly(url: string): boolean {
  return url.startsWith('/api/') || url === '/health' || url.startsWith('/health/');
}

/**
 * Sets helmet's headers on every answer: the strict set on the JSON API and on anything no route
 * serves (those answers are JSON errors), the page set on the other routes (the docs).
 */
export function addSecurityHeaders(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const route = request.routeOptions.url;
    void reply.headers(route === undefined || servesJsonOnly(route) ? API_SECURITY_HEADERS : PAGE_SECURITY_HEADERS);
    done();
  });
}

/** Tenant data must not be kept by browsers or shared caches. */
export function noStoreForApi(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/api/')) void reply.header('cache-control', 'no-store');
    done();
  });
}
