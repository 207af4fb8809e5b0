import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import type { PageEnvelope } from '../common/http/envelopes.js';
import { listUrl, pageEnvelope, parsePage } from '../common/http/pagination.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiPage } from '../openapi/api-responses.decorator.js';
import { listMemberships, type MembershipRecord } from './enterprise-memberships.js';
import { MembershipSchema } from './membership.schema.js';

/**
 * The enterprise's members and their roles (v2 only). The users' own records keep the shape
 * clients already rely on; the role is read here.
 */
@Controller({ path: 'memberships', version: '2' })
@ApiTags('Users')
export class MembershipsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Operation(
    'listMemberships',
    'List memberships and roles',
    "Each member of the enterprise in the header with its role, newest first, 100 a page: the users' records " +
      'themselves do not carry the role.',
  )
  @ApiPage(MembershipSchema, "A page of the enterprise's memberships.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') page: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<MembershipRecord>> {
    const number = parsePage(page);
    const { records, total } = await listMemberships(this.dataSource, enterpriseId, number);
    return pageEnvelope(records, total, number, listUrl(request, this.config.appUrl));
  }
}
