import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-http-bearer';
import { headerEnterpriseId } from '../tenancy/enterprise-header.js';
import type { AuthenticatedUser } from './authenticated-user.js';
import { TokenService } from './token.service.js';

export const BEARER = 'bearer';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER) {
  constructor(private readonly tokens: TokenService) {
    super({ passReqToCallback: true });
  }

  /** The enterprise header's membership is checked in the token's own query (one round trip). */
  async validate(request: FastifyRequest, token: string): Promise<AuthenticatedUser | false> {
    return (await this.tokens.resolve(token, headerEnterpriseId(request))) ?? false;
  }
}
