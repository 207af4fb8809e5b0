import { Controller, Inject, Param, Post, Put, UseGuards } from '@nestjs/common';
import { ApiBody, ApiResponse, ApiTags } from '@nestjs/swagger';
import { BareRecord, DataEnvelope } from '../../common/http/envelopes.js';
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
import { leadInputV1Schema } from './lead-input.schema.js';
import { V1LeadInputPipe } from './lead-input.pipe.js';

/** v1 leads: the small rule set, no key normalisation, extra keys kept. */
@Controller({ path: 'leads', version: '1' })
@ApiTags('Leads')
export class V1LeadsController extends LeadRoutes {
  constructor(
    leads: LeadsService,
    reader: ResourceReader,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly writes: IdempotentWrites,
  ) {
    super(leads, reader, config);
  }

  @Post()
  @Operation('createLead', 'Create a lead', "Creates a lead in the header's enterprise.")
  @ApiBody({ schema: leadInputV1Schema() })
  @ApiRecord(LeadSchema, 'The created lead.', 201)
  @ApiLeadValidation()
  @ApiIdempotentWrite()
  async create(
    @CurrentEnterprise() enterpriseId: string,
    @LeadBody(V1LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.writes.run(write, (db) => this.leads.create(enterpriseId, changes, db)));
  }

  /** The updated lead itself, not wrapped; the casing hook puts it in v1 casing. */
  @Put(':id')
  @UseGuards(LeadAccessGuard)
  @Operation(
    'updateLead',
    'Update a lead',
    'Absent fields stay unchanged. v1 answers the updated lead itself, not wrapped.',
  )
  @ApiBody({ schema: leadInputV1Schema() })
  @ApiResponse({ status: 200, type: LeadSchema, description: 'The updated lead, not wrapped in `data`.' })
  @ApiRecordId('Lead')
  @ApiOtherEnterprise()
  @ApiLeadValidation()
  @ApiIdempotentWrite()
  async update(
    @Param('id', new RecordIdPipe('Lead')) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @LeadBody(V1LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<BareRecord<LeadRecord>> {
    return new BareRecord(await this.writes.run(write, (db) => this.leads.update(id, enterpriseId, changes, db)));
  }
}
