import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ConditionalRead } from '../changes/conditional-read.interceptor.js';
import type { FastifyRequest } from 'fastify';
import { BOTH_VERSIONS } from '../common/http/api-version.js';
import { DataEnvelope, PageEnvelope } from '../common/http/envelopes.js';
import { listUrl, pageEnvelope, pageRequest, parsePage } from '../common/http/pagination.js';
import { ReadOnlyRoutes } from '../common/http/read-only-routes.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiPage, ApiRecord, ApiRecordId, ApiOtherEnterprise } from '../openapi/api-responses.decorator.js';
import type { OrganisationRecord } from './organisation.presenter.js';
import { OrganisationSchema } from './organisation.schema.js';
import { OrganisationsService } from './organisations.service.js';

/** Read-only in both versions; v1 differs only by the casing step (R1, R2). */
@Controller({ path: 'organisations', version: BOTH_VERSIONS })
@ApiTags('Organisations')
export class OrganisationsController extends ReadOnlyRoutes {
  constructor(
    private readonly organisations: OrganisationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  @Get()
  @ConditionalRead('organisation')
  @Operation(
    'listOrganisations',
    'List organisations',
    "The enterprise's organisations, 100 a page, with their contact rows.",
  )
  @ApiPage(OrganisationSchema, "A page of the enterprise's organisations, newest first.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') pageParam: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<OrganisationRecord>> {
    const page = parsePage(pageParam);
    const { records, total } = await this.organisations.listPage(enterpriseId, pageRequest(page));
    return pageEnvelope(records, total, page, listUrl(request, this.config.appUrl));
  }

  @Get(':id')
  @ConditionalRead('organisation')
  @Operation('getOrganisation', 'Retrieve an organisation', 'An organisation of the enterprise in the header, by id.')
  @ApiRecord(OrganisationSchema, 'The organisation.')
  @ApiRecordId('Organisation')
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe('Organisation')) id: string,
    @CurrentEnterprise() enterpriseId: string,
  ): Promise<DataEnvelope<OrganisationRecord>> {
    return new DataEnvelope(await this.organisations.get(id, enterpriseId));
  }
}
