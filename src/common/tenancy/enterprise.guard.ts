import { ForbiddenException, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { IS_PUBLIC } from '../auth/public.decorator.js';
import { ErrorMessages } from '../http/error-messages.js';
import { isUuid } from '../http/uuid.js';
import { rawEnterpriseHeader } from './enterprise-header.js';
import { MembershipService } from './membership.service.js';
import { WITHOUT_ENTERPRISE } from './without-enterprise.decorator.js';

/**
 * Step 4 of R9: the enterprise header names an enterprise the caller belongs to. Missing:
 * 403 naming the header; not a UUID or not a member: 403 Forbidden.
 */
@Injectable()
export class EnterpriseGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly memberships: MembershipService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, targets)) return true;
    if (this.reflector.getAllAndOverride<boolean>(WITHOUT_ENTERPRISE, targets)) return true;

    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { version, value } = rawEnterpriseHeader(request);
    if (value === undefined) {
      throw new ForbiddenException({ message: ErrorMessages.enterpriseHeaderRequired(version) });
    }
    const enterpriseId = value.toLowerCase();
    const user = request.user;
    if (!user || !isUuid(enterpriseId) || !(await this.isMember(user, enterpriseId))) {
      throw new ForbiddenException({ message: ErrorMessages.forbidden });
    }
    request.enterpriseId = enterpriseId;
    return true;
  }

  /** The token lookup usually answered this already, in its own query. */
  private isMember(user: AuthenticatedUser, enterpriseId: string): Promise<boolean> {
    if (user.membership?.enterpriseId === enterpriseId) return Promise.resolve(user.membership.member);
    return this.memberships.isMember(user.id, enterpriseId);
  }
}
