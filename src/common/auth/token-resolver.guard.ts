import { Injectable, type ExecutionContext } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { AuthenticatedUser } from './authenticated-user.js';
import { BEARER } from './bearer.strategy.js';

/**
 * Step 1 of R9: resolves the bearer token when there is one, never refuses. Rate limiting
 * (per user or per IP) and the 401 of AuthenticatedGuard come after it.
 */
@Injectable()
export class TokenResolverGuard extends AuthGuard(BEARER) {
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    await (super.canActivate(context) as Promise<boolean>);
    return true;
  }

  /** No or a bad token: no user. A failure while resolving (database down) is not a 401. */
  override handleRequest<TUser = AuthenticatedUser | null>(error: unknown, user: AuthenticatedUser | false): TUser {
    if (error instanceof Error) throw error;
    // Keep what failed (a database fault is a 503, not a 500): the filter reads `cause`.
    if (error) throw new Error('The bearer token could not be resolved.', { cause: error });
    return (user || null) as TUser;
  }

  override getAuthenticateOptions() {
    return { session: false };
  }
}
