import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthenticatedUser } from './authenticated-user.js';
import { TokenService } from './token.service.js';

export const BEARER = 'bearer';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, BEARER) {
  constructor(private readonly tokens: TokenService) {
    super();
  }

  async validate(token: string): Promise<AuthenticatedUser | false> {
    return (await this.tokens.resolve(token)) ?? false;
  }
}
