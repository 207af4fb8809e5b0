import { ForbiddenException, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user.js';
import { ErrorMessages } from '../http/error-messages.js';
import type { EnterpriseHeader } from './enterprise-header.js';
import { MembershipService } from './membership.service.js';

/**
 * The enterprise header names an enterprise the caller belongs to. Missing: 403 naming the
 * header; not a UUID or not a member: 403 Forbidden. On success the request carries the
 * enterprise's id (lower-cased).
 */
@Injectable()
export class EnterpriseAccess {
  constructor(private readonly memberships: MembershipService) {}

  /** `enterpriseId`: the header's value as an enterprise id (`enterpriseIdOf`), read once per request. */
  async check(
    request: FastifyRequest,
    header: EnterpriseHeader,
    enterpriseId: string | undefined,
    user: AuthenticatedUser,
  ): Promise<void> {
    if (header.value === undefined) {
      throw new ForbiddenException({ message: ErrorMessages.enterpriseHeaderRequired(header.version) });
    }
    if (enterpriseId === undefined || !(await this.isMember(user, enterpriseId))) {
      throw new ForbiddenException({ message: ErrorMessages.forbidden });
    }
    request.enterpriseId = enterpriseId;
  }

  /** The token lookup usually answered this already, in its own query. */
  private isMember(user: AuthenticatedUser, enterpriseId: string): Promise<boolean> {
    if (user.membership?.enterpriseId === enterpriseId) return Promise.resolve(user.membership.member);
    return this.memberships.isMember(user.id, enterpriseId);
  }
}
