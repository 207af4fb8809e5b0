import { Delete, ForbiddenException, Get, Param, Query, Req } from '@nestjs/common';
import { Conditional, ConditionalRead, type Revalidation } from '../changes/conditional-read.js';
import type { FastifyRequest } from 'fastify';
import { DataEnvelope, type PageEnvelope } from '../common/http/envelopes.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { listUrl, pageEnvelope, pageRequest, parsePage } from '../common/http/pagination.js';
import type { ApiVersion } from '../common/http/api-version.js';
import { RequestApiVersion } from '../common/http/api-version.decorator.js';
import type { ResourceReader } from '../resources/resource-reader.js';
import { LEADS } from './leads.resource.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { ReadingAs } from '../common/tenancy/read-scope.decorator.js';
import type { ReadScope } from '../database/replicas/write-positions.js';
import type { AppConfig } from '../config/app-config.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import {
  ApiDisabled,
  ApiOtherEnterprise,
  ApiPage,
  ApiRecord,
  ApiRecordId,
} from '../openapi/api-responses.decorator.js';
import type { LeadRecord } from './lead.presenter.js';
import type { LeadsService } from './leads.service.js';

/**
 * The lead routes that are the same in both versions (the v1 casing hook makes the
 * difference in shape). The version controllers extend this and add create and update,
 * whose rules differ.
 */
export abstract class LeadRoutes {
  protected constructor(
    protected readonly leads: LeadsService,
    private readonly reader: ResourceReader,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ConditionalRead()
  @Operation(LEADS.list.id, LEADS.list.summary, LEADS.list.description)
  @ApiPage(LEADS.schema, LEADS.list.answer)
  async list(
    @ReadingAs() scope: ReadScope,
    @Query('page') page: unknown,
    @Req() request: FastifyRequest,
    @RequestApiVersion() version: ApiVersion,
    @Conditional() conditional: Revalidation,
  ): Promise<PageEnvelope<LeadRecord>> {
    const current = parsePage(page);
    const url = listUrl(request, this.config.appUrl);
    const beforeRows = conditional.list(LEADS, current, url);
    const { records, total } = await this.reader.listPage(LEADS, scope, pageRequest(current), version, beforeRows);
    return pageEnvelope(records, total, current, url);
  }

  @Get(':id')
  @ConditionalRead()
  @Operation(LEADS.retrieve.id, LEADS.retrieve.summary, LEADS.retrieve.description)
  @ApiRecord(LEADS.schema, LEADS.retrieve.answer)
  @ApiRecordId(LEADS.model)
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe(LEADS.model)) id: string,
    @ReadingAs() scope: ReadScope,
    @RequestApiVersion() version: ApiVersion,
    @Conditional() conditional: Revalidation,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.reader.get(LEADS, id, scope, version, conditional.record(LEADS, id)));
  }

  /** Leads are never deleted through the API: 403 after authentication. */
  @Delete(':id')
  @Operation('deleteLead', 'Delete a lead (not available)', 'Leads are never deleted through the API.')
  @ApiDisabled()
  deleteIsForbidden(): never {
    throw new ForbiddenException({ message: ErrorMessages.forbidden });
  }
}
