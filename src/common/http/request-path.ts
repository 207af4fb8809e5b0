/** The path of a request URL: without its query string. */
export function pathOf(url: string): string {
  return url.split('?')[0] ?? '/';
}

/** The path as the router matches it: one trailing slash ignored (ROUTER_OPTIONS). */
export function routePath(url: string): string {
  return pathOf(url).replace(/(.)\/$/, '$1');
}
