import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthenticatedUser } from '../common/access/authenticated-user.js';
import type { TokenRequest } from '../common/access/token-strategy.js';
import { TokenService } from './token.service.js';

/**
 * The bearer token of an `Authorization: Bearer <token>` header (scheme in any case, exactly one
 * space, as RFC 6750 has it; passport-http-bearer parses it), resolved by `TokenService`. The
 * access guard runs it with the request's headers only (`TokenRequest`), so the strategy's
 * `access_token` in a query string or body is never read.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy) {
  constructor(private readonly tokens: TokenService) {
    super({ passReqToCallback: true });
  }

  /** Membership of the header's enterprise is answered by the token's own query (one round trip). */
  async validate(request: TokenRequest, token: string): Promise<AuthenticatedUser | false> {
    return (await this.tokens.resolve(token, request.enterpriseId)) ?? false;
  }
}
