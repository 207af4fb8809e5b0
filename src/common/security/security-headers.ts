import type { FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Helmet's headers for every answer. The API only ever answers JSON, so its content security
 * policy allows nothing to load and nothing to frame it (OWASP's REST recommendation); helmet's
 * other defaults stay (nosniff, HSTS, no-referrer, same-origin resource and opener policies, no
 * `X-Powered-By`). `X-Frame-Options` is DENY for the same reason.
 */
export const SECURITY_HEADERS: FastifyHelmetOptions = {
  global: true,
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
};

/**
 * Routes outside the JSON API (an HTML page such as API documentation) get helmet's default
 * policy instead, which lets a page load its own scripts, styles and images. Without
 * `upgrade-insecure-requests`: the service may be reached over plain HTTP on a developer machine.
 */
const HTML_PAGE_HEADERS: FastifyHelmetOptions = {
  contentSecurityPolicy: { useDefaults: true, directives: { upgradeInsecureRequests: null } },
  frameguard: { action: 'sameorigin' },
};

function servesJsonOnly(url: string): boolean {
  return url.startsWith('/api/') || url === '/health';
}

/** Route-level helmet options for pages outside the JSON API (see HTML_PAGE_HEADERS). */
export function relaxHeadersForPages(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route: RouteOptions & { helmet?: unknown }) => {
    if (servesJsonOnly(route.url) || route.helmet !== undefined) return;
    const config = (route.config ?? {}) as Record<string, unknown>;
    if (config.helmet !== undefined) return;
    route.config = { ...config, helmet: HTML_PAGE_HEADERS };
  });
}

/** Tenant data must not be kept by browsers or shared caches. */
export function noStoreForApi(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/api/')) void reply.header('cache-control', 'no-store');
    done();
  });
}
