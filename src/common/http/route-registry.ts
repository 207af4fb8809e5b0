import FindMyWay from 'find-my-way';

export interface RouteEntry {
  readonly method: string;
  /** The pattern as registered, e.g. `/api/v2/leads/:id`. */
  readonly url: string;
}

/**
 * Every route the server registered, matchable by concrete path, so an unknown method on a
 * known path can answer 405 with `Allow` (R10) instead of 404.
 */
export class RouteRegistry {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true });
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
    return [...this.methods].filter((m) => this.router.find(m as FindMyWay.HTTPMethod, path) !== null).sort();
  }
}
