import { Global, Module } from '@nestjs/common';
import { TOKEN_STRATEGY } from '../common/access/token-strategy.js';
import { EnterpriseAccess } from '../common/tenancy/enterprise-access.js';
import { MembershipCheck } from '../common/tenancy/membership-check.js';
import { BearerStrategy } from './bearer.strategy.js';
import { MembershipService } from './membership.service.js';
import { TokenService } from './token.service.js';

/**
 * Token issue and resolution and membership look-ups, for every module; and what the access
 * guard (which names no domain module) runs: the passport bearer strategy and the membership check.
 */
@Global()
@Module({
  providers: [
    TokenService,
    BearerStrategy,
    { provide: TOKEN_STRATEGY, useExisting: BearerStrategy },
    { provide: MembershipCheck, useClass: MembershipService },
    EnterpriseAccess,
  ],
  exports: [TokenService, TOKEN_STRATEGY, MembershipCheck, EnterpriseAccess],
})
export class AuthenticationModule {}
