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
import type { PersonRecord } from './person.presenter.js';
import { PersonSchema } from './person.schema.js';
import { PeopleService } from './people.service.js';

/** Read-only in both versions; v1 differs only by the casing step (R1, R2). */
@Controller({ path: 'people', version: BOTH_VERSIONS })
@ApiTags('People')
export class PeopleController extends ReadOnlyRoutes {
  constructor(
    private readonly people: PeopleService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  @Get()
  @ConditionalRead('person')
  @Operation('listPeople', 'List people', "The enterprise's people, 100 a page, with their contact and financial rows.")
  @ApiPage(PersonSchema, "A page of the enterprise's people, newest first.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') pageParam: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<PersonRecord>> {
    const page = parsePage(pageParam);
    const { records, total } = await this.people.listPage(enterpriseId, pageRequest(page));
    return pageEnvelope(records, total, page, listUrl(request, this.config.appUrl));
  }

  @Get(':id')
  @ConditionalRead('person')
  @Operation('getPerson', 'Retrieve a person', 'A person of the enterprise in the header, by id.')
  @ApiRecord(PersonSchema, 'The person.')
  @ApiRecordId('Person')
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe('Person')) id: string,
    @CurrentEnterprise() enterpriseId: string,
  ): Promise<DataEnvelope<PersonRecord>> {
    return new DataEnvelope(await this.people.get(id, enterpriseId));
  }
}
