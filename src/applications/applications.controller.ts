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
import type { ApplicationRecord } from './application.presenter.js';
import { ApplicationSchema } from './application.schema.js';
import { ApplicationsService } from './applications.service.js';

/** Read-only in both versions; v1 differs only by the casing step (R1, R2). */
@Controller({ path: 'applications', version: BOTH_VERSIONS })
@ApiTags('Applications')
export class ApplicationsController extends ReadOnlyRoutes {
  constructor(
    private readonly applications: ApplicationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  @Get()
  @ConditionalRead('application')
  @Operation('listApplications', 'List applications', "The enterprise's applications, 100 a page.")
  @ApiPage(ApplicationSchema, "A page of the enterprise's applications, newest first.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') pageParam: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<ApplicationRecord>> {
    const page = parsePage(pageParam);
    const { records, total } = await this.applications.listPage(enterpriseId, pageRequest(page));
    return pageEnvelope(records, total, page, listUrl(request, this.config.appUrl));
  }

  @Get(':id')
  @ConditionalRead('application')
  @Operation('getApplication', 'Retrieve an application', 'An application of the enterprise in the header, by id.')
  @ApiRecord(ApplicationSchema, 'The application.')
  @ApiRecordId('Application')
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe('Application')) id: string,
    @CurrentEnterprise() enterpriseId: string,
  ): Promise<DataEnvelope<ApplicationRecord>> {
    return new DataEnvelope(await this.applications.get(id, enterpriseId));
  }
}
