import { Controller, Inject, Param, Post, Put, UseGuards, UseInterceptors } from '@nestjs/common';
import { ApiBody, ApiTags } from '@nestjs/swagger';
import { V2KeyNormaliserInterceptor } from '../../common/casing/v2-key-normaliser.interceptor.js';
import { DataEnvelope } from '../../common/http/envelopes.js';
import { RecordIdPipe } from '../../common/http/record-id.pipe.js';
import { IdempotentWrites } from '../../idempotency/idempotent-writes.service.js';
import { CurrentWrite, type WriteRequest } from '../../idempotency/write-request.decorator.js';
import { CurrentEnterprise } from '../../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { LeadAccessGuard } from '../lead-access.guard.js';
import { LeadBody } from '../lead-body.decorator.js';
import type { LeadChanges } from '../lead-fields.js';
import type { LeadRecord } from '../lead.presenter.js';
import { LeadRoutes } from '../lead-routes.js';
import { LeadsService } from '../leads.service.js';
import { ResourceReader } from '../../resources/resource-reader.js';
import { LeadSchema } from '../lead.schema.js';
import { Operation } from '../../openapi/api-operation.decorator.js';
import {
  ApiIdempotentWrite,
  ApiLeadValidation,
  ApiOtherEnterprise,
  ApiRecord,
  ApiRecordId,
} from '../../openapi/api-responses.decorator.js';
import { leadInputV2Schema } from './lead-input.schema.js';
import { V2LeadInputPipe } from './lead-input.pipe.js';

/**
 * v2 leads: the full rule set on snake_cased bodies. The writes are the only v2
 * routes that read a body, so the key normaliser is bound to them alone.
 */
@Controller({ path: 'leads', version: '2' })
@ApiTags('Leads')
export class V2LeadsController extends LeadRoutes {
  constructor(
    leads: LeadsService,
    reader: ResourceReader,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly writes: IdempotentWrites,
  ) {
    super(leads, reader, config);
  }

  @Post()
  @UseInterceptors(V2KeyNormaliserInterceptor)
  @Operation('createLead', 'Create a lead', "Creates a lead in the header's enterprise.")
  @ApiBody({ schema: leadInputV2Schema() })
  @ApiRecord(LeadSchema, 'The created lead.', 201)
  @ApiLeadValidation()
  @ApiIdempotentWrite()
  async create(
    @CurrentEnterprise() enterpriseId: string,
    @LeadBody(V2LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.writes.run(write, (db) => this.leads.create(enterpriseId, changes, db)));
  }

  /** An update answers `{data: lead}`. */
  @Put(':id')
  @UseGuards(LeadAccessGuard)
  @UseInterceptors(V2KeyNormaliserInterceptor)
  @Operation('updateLead', 'Update a lead', 'Absent fields stay unchanged.')
  @ApiBody({ schema: leadInputV2Schema() })
  @ApiRecord(LeadSchema, 'The updated lead.')
  @ApiRecordId('Lead')
  @ApiOtherEnterprise()
  @ApiLeadValidation()
  @ApiIdempotentWrite()
  async update(
    @Param('id', new RecordIdPipe('Lead')) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @LeadBody(V2LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.writes.run(write, (db) => this.leads.update(id, enterpriseId, changes, db)));
  }
}
