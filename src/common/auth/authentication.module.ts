import { Global, Module } from '@nestjs/common';
import { EnterpriseAccess } from '../tenancy/enterprise-access.js';
import { MembershipService } from '../tenancy/membership.service.js';
import { TokenService } from './token.service.js';

/** Token issue and resolution and membership look-ups, for every module. */
@Global()
@Module({
  providers: [TokenService, MembershipService, EnterpriseAccess],
  exports: [TokenService, MembershipService, EnterpriseAccess],
})
export class AuthenticationModule {}
