import type { IncomingHttpHeaders } from 'node:http';
import type { AuthenticatedUser } from './authenticated-user.js';

/**
 * What the access guard hands the bearer strategy: the request's headers and the enterprise its
 * header names, nothing else. A strategy that would also take `access_token` from a query string
 * or a body (passport-http-bearer does) finds neither, so such a token is never read: tokens in
 * URLs and bodies end up in logs and browser history, and the API documents the header only.
 */
export interface TokenRequest {
  readonly headers: IncomingHttpHeaders;
  /** The enterprise header's UUID, when it has one: the token's lookup answers membership too. */
  readonly enterpriseId?: string | undefined;
}

/** The actions passport gives each authentication attempt (the passport-strategy contract). */
interface StrategyActions {
  success(user: unknown, info?: unknown): void;
  fail(challenge?: unknown, status?: number): void;
  error(error: unknown): void;
  pass(): void;
  redirect(url: string, status?: number): void;
}

/** A passport strategy that resolves a request's bearer token to its user. */
export interface TokenStrategy {
  authenticate(this: TokenStrategy & StrategyActions, request: TokenRequest, options?: unknown): void;
}

/** Injection token of the strategy the access guard runs; the authentication module provides it. */
export const TOKEN_STRATEGY = Symbol('TOKEN_STRATEGY');

/**
 * Runs `strategy` once for `request` the way passport's `authenticate` middleware does (an
 * object inheriting from the strategy, given the actions), without the middleware's session
 * and `req.login` decorations, which a stateless API has no use for. A failed or missing token
 * is no user, never an answer: the 401 comes later in the guard, after the rate limit. An error
 * (the database is down) rejects, and keeps what failed as `cause` so the filter can answer 503.
 */
export function authenticateWith(strategy: TokenStrategy, request: TokenRequest): Promise<AuthenticatedUser | null> {
  return new Promise((resolve, reject) => {
    const attempt = Object.create(strategy) as TokenStrategy & StrategyActions;
    attempt.success = (user) => resolve(user as AuthenticatedUser);
    attempt.fail = () => resolve(null);
    attempt.pass = () => resolve(null);
    attempt.redirect = () => reject(new Error('A bearer token strategy cannot redirect.'));
    attempt.error = (error) =>
      reject(error instanceof Error ? error : new Error('The bearer token could not be resolved.', { cause: error }));
    attempt.authenticate(request);
  });
}
