/** One key's fixed window after a request was counted, or refused without being counted. */
export interface WindowState {
  readonly allowed: boolean;
  /** Requests counted in the window, this one included when allowed. */
  readonly hits: number;
  /** When the window ends, ms since the epoch. */
  readonly resetAt: number;
}

/**
 * Fixed windows per key: the first request opens a window of `windowMs`; up to `limit`
 * requests are counted in it; further ones are refused and do not count.
 */
export interface RateLimitStore {
  hit(key: string, limit: number, windowMs: number, now: number): Promise<WindowState>;
}
