import {
  ForbiddenException,
  Inject,
  Injectable,
  UnauthorizedException,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ErrorMessages } from '../http/error-messages.js';
import { ApiThrottlerGuard } from '../rate-limit/api-throttler.guard.js';
import { EnterpriseAccess } from '../tenancy/enterprise-access.js';
import { enterpriseIdOf, rawEnterpriseHeader } from '../tenancy/enterprise-header.js';
import type { AuthenticatedUser, EnterpriseRole } from './authenticated-user.js';
import { AccessMessages } from './required-access.js';
import { RouteAccessCache, type RouteAccess } from './route-access.js';
import { authenticateWith, TOKEN_STRATEGY, type TokenStrategy } from './token-strategy.js';

/**
 * The order of checks of every route, in one place (one guard, so one step of Nest's guard
 * pipeline per request):
 * 1. the bearer token is resolved when there is one (never refused here), by the passport
 *    strategy the authentication module provides, given the request's headers only;
 * 2. the rate limit (`@nestjs/throttler`'s guard) counts the request, per user or, without a
 *    valid token, per IP (429), unless the route is marked @SkipThrottle();
 * 3. a route not marked @Public() needs a valid token (401);
 * 4. unless marked @WithoutEnterprise(), an enterprise header naming an enterprise the user
 *    belongs to (403);
 * 5. a limited token: bound to that enterprise, and holding the route's ability (403, `This token
 *    cannot ...`); an @AdminOnly() route: the user is an admin there (403);
 * 6. and a write of that enterprise takes its place in the enterprise's bulkhead.
 * Validation of the body and the route's own 404/403 come after, in the route.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  private readonly routes: RouteAccessCache;

  constructor(
    reflector: Reflector,
    @Inject(TOKEN_STRATEGY) private readonly tokens: TokenStrategy,
    private readonly throttler: ApiThrottlerGuard,
    private readonly enterprises: EnterpriseAccess,
  ) {
    this.routes = new RouteAccessCache(reflector);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const access = this.routes.of(context);
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const header = rawEnterpriseHeader(request);
    const enterpriseId = enterpriseIdOf(header);
    // The token's query also answers whether the user belongs to the header's enterprise.
    const user = await authenticateWith(this.tokens, { headers: request.headers, enterpriseId });
    request.user = user;
    const counting = this.throttler.count(context);
    if (counting) await counting;
    if (access.isPublic) return true;
    if (!user) throw new UnauthorizedException({ message: ErrorMessages.unauthenticated });
    if (access.withoutEnterprise) {
      checkScope(access, user, undefined, undefined);
      return true;
    }
    // Each step answers without a promise when it has nothing to wait for: no await then.
    const admitting = this.enterprises.admit(request, header, enterpriseId, user);
    const role = admitting instanceof Promise ? await admitting : admitting;
    const admitted = request.enterpriseId ?? '';
    checkScope(access, user, admitted, role);
    const entering = this.enterprises.enter(request, admitted);
    if (entering) await entering;
    return true;
  }
}

/** What a limited token, or a member who is not an admin, may not do here: 403. */
function checkScope(
  access: RouteAccess,
  user: AuthenticatedUser,
  enterpriseId: string | undefined,
  role: EnterpriseRole | undefined,
): void {
  const scope = user.scope;
  if (scope !== undefined) {
    if (enterpriseId !== undefined && scope.enterprises !== null && !scope.enterprises.includes(enterpriseId)) {
      throw new ForbiddenException({ message: AccessMessages.tokenNotForEnterprise });
    }
    const required = access.ability;
    const allowed =
      scope.abilities === null ||
      required.kind === 'any' ||
      (required.kind === 'ability' && scope.abilities.includes(required.ability));
    if (!allowed) throw new ForbiddenException({ message: AccessMessages.tokenCannot(required) });
  }
  if (access.adminOnly && role !== 'admin') {
    throw new ForbiddenException({ message: AccessMessages.adminOnly(access.ability) });
  }
}
