import { Controller, Delete, Get, HttpCode, Inject, Param, Query, Req } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { auditActorOf } from '../audit/audit-trail.js';
import { AdminOnly, RequiresAbility } from '../common/access/required-access.js';
import type { PageEnvelope } from '../common/http/envelopes.js';
import { OptionalBody } from '../common/http/optional-body.js';
import { listUrl, pageEnvelope, parsePage } from '../common/http/pagination.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiOtherEnterprise, ApiPage, ApiRecordId } from '../openapi/api-responses.decorator.js';
import { EnterpriseTokenSchema } from './enterprise-token.schema.js';
import {
  listEnterpriseTokens,
  revokeEnterpriseToken,
  TOKEN_MODEL,
  type EnterpriseTokenRecord,
} from './enterprise-tokens.js';

/** The enterprise's integration tokens, for its admins (v2 only): see them and revoke them. */
@Controller({ path: 'tokens', version: '2' })
@ApiTags('Tokens')
@RequiresAbility('tokens:manage')
@AdminOnly()
export class EnterpriseTokensController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Operation(
    'listTokens',
    'List integration tokens',
    "The integration tokens that can act for the enterprise (its members', unbound or bound to it), newest " +
      'first, 100 a page; never a secret. Login tokens are not listed.',
  )
  @ApiPage(EnterpriseTokenSchema, "A page of the enterprise's integration tokens.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') page: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<EnterpriseTokenRecord>> {
    const number = parsePage(page);
    const { records, total } = await listEnterpriseTokens(this.dataSource, enterpriseId, number);
    return pageEnvelope(records, total, number, listUrl(request, this.config.appUrl));
  }

  @Delete(':id')
  @HttpCode(204)
  @OptionalBody()
  @Operation(
    'revokeToken',
    'Revoke an integration token',
    'From now on it answers 401 everywhere, on every instance. Recorded in the audit trail.',
  )
  @ApiResponse({ status: 204, description: 'Revoked.' })
  @ApiRecordId(TOKEN_MODEL)
  @ApiOtherEnterprise("The token is not one of the enterprise's integration tokens (another's, or a login token).")
  async revoke(
    @Param('id', new RecordIdPipe(TOKEN_MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.dataSource.transaction((db) => revokeEnterpriseToken(db, enterpriseId, id, auditActorOf(request)));
  }
}
