import { Delete, ForbiddenException, Get, Param, Query, Req } from '@nestjs/common';
import { ConditionalRead } from '../changes/conditional-read.interceptor.js';
import type { FastifyRequest } from 'fastify';
import { DataEnvelope, type PageEnvelope } from '../common/http/envelopes.js';
import { ErrorMessages } from '../common/http/error-messages.js';
import { listUrl, pageEnvelope, parsePage } from '../common/http/pagination.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
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
import { LeadSchema } from './lead.schema.js';
import type { LeadsService } from './leads.service.js';

/**
 * The lead routes that are the same in both versions (the v1 casing interceptor makes the
 * difference in shape, R1). The version controllers extend this and add create and update,
 * whose rules differ (spec 4.3, R15-R17).
 */
export abstract class LeadRoutes {
  protected constructor(
    protected readonly leads: LeadsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @ConditionalRead('lead')
  @Operation('listLeads', 'List leads', "The enterprise's leads, 100 a page.")
  @ApiPage(LeadSchema, "A page of the enterprise's leads, newest first.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') page: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<LeadRecord>> {
    const current = parsePage(page);
    const { records, total } = await this.leads.list(enterpriseId, current);
    return pageEnvelope(records, total, current, listUrl(request, this.config.appUrl));
  }

  @Get(':id')
  @ConditionalRead('lead')
  @Operation('getLead', 'Retrieve a lead', 'A lead of the enterprise in the header, by id.')
  @ApiRecord(LeadSchema, 'The lead.')
  @ApiRecordId('Lead')
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe('Lead')) id: string,
    @CurrentEnterprise() enterpriseId: string,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.leads.get(id, enterpriseId));
  }

  /** Leads are never deleted through the API (spec 4.2, R11): 403 after authentication. */
  @Delete(':id')
  @Operation('deleteLead', 'Delete a lead (not available)', 'Leads are never deleted through the API.')
  @ApiDisabled()
  deleteIsForbidden(): never {
    throw new ForbiddenException({ message: ErrorMessages.forbidden });
  }
}
