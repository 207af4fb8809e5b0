import { Global, Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { MembershipService } from '../tenancy/membership.service.js';
import { BearerStrategy } from './bearer.strategy.js';
import { TokenService } from './token.service.js';

/** Token issue and resolution, the bearer strategy and membership look-ups, for every module. */
@Global()
@Module({
  imports: [PassportModule],
  providers: [TokenService, BearerStrategy, MembershipService],
  exports: [TokenService, MembershipService],
})
export class AuthenticationModule {}
