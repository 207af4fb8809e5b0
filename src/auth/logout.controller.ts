import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../common/access/authenticated-user.js';
import { CurrentUser } from '../common/access/current-user.decorator.js';
import { AnyTokenAbility } from '../common/access/required-access.js';
import { TokenService } from './token.service.js';
import { BOTH_VERSIONS } from '../common/http/api-version.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import { Operation } from '../openapi/api-operation.decorator.js';

/** Revokes the token that made the call; the user's other tokens keep working. */
@Controller({ version: BOTH_VERSIONS })
@ApiTags('Authentication')
@WithoutEnterprise()
// Any token may end itself, whatever it may do otherwise.
@AnyTokenAbility()
export class LogoutController {
  constructor(private readonly tokens: TokenService) {}

  @Post('logout')
  @HttpCode(204)
  @Operation(
    'logout',
    'Log out',
    'Revokes the bearer token of this call: from now on it answers 401 everywhere. No body, no enterprise header.',
  )
  @ApiResponse({ status: 204, description: 'The token is revoked.' })
  async logout(@CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.tokens.revoke(user.tokenId);
  }
}
