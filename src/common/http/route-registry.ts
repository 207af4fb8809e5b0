import FindMyWay from 'find-my-way';

export interface RouteEntry {
  readonly method: string;
  /** The pattern as registered, e.g. `/api/v2/leads/:id`. */
  readonly url: string;
}

/**
 * Fastify's router options, shared with this registry so both match the same paths.
 * `/api/v2/people/` is `/api/v2/people`; an id of any length (Node caps the request line at
 * 16 KiB) is the 404 of a record that does not exist, not the router's 414 for a parameter
 * over 100 characters.
 */
export const ROUTER_OPTIONS = { ignoreTrailingSlash: true, maxParamLength: 16_384 } as const;

/**
 * Every route the server registered, matchable by concrete path, so an unknown method on a
 * known path can answer 405 with `Allow` instead of 404.
 */
export class RouteRegistry {
  private readonly router = FindMyWay(ROUTER_OPTIONS);
  private readonly methods = new Set<string>();
  private readonly entries: RouteEntry[] = [];

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      this.methods.add(m);
      try {
        this.router.on(m as FindMyWay.HTTPMethod, url, () => undefined);
        this.entries.push({ method: m, url });
      } catch {
        // The same route registered twice (Fastify's own duplicate check reports it).
      }
    }
  }

  /** Every registered route (HEAD and OPTIONS left out), in registration order. */
  list(): readonly RouteEntry[] {
    return this.entries;
  }

  /** The methods that do exist for a path, in a stable order. */
  allowedMethods(path: string): string[] {
    return [...this.methods].filter((m) => this.routes(m, path)).sort();
  }

  /**
   * Whether a route of that method serves the path, as Fastify's router decides: this
   * find-my-way would give `/api/v2/leads//` the id '', which Fastify's does not route.
   */
  private routes(method: string, path: string): boolean {
    const found = this.router.find(method as FindMyWay.HTTPMethod, path);
    return found !== null && Object.values(found.params).every((value) => value !== '');
  }
}
