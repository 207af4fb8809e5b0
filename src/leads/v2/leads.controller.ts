import { Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DataEnvelope } from '../../common/http/envelopes.js';
import { RecordIdPipe } from '../../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../../common/tenancy/current-enterprise.decorator.js';
import { CurrentWrite, type WriteRequest } from '../../idempotency/write-request.decorator.js';
import { ResourceBody } from '../../writes/resource-body.decorator.js';
import { writableRoutes } from '../../writes/writable-routes.js';
import { CreateRoute, UpdateRoute } from '../../writes/write-routes.js';
import type { LeadChanges } from '../lead-fields.js';
import type { LeadRecord } from '../lead.presenter.js';
import { LEADS } from '../leads.resource.js';
import { LeadsService } from '../leads.service.js';
import { leadInputV2Schema } from './lead-input.schema.js';
import { V2LeadInputPipe } from './lead-input.pipe.js';

/** v2 leads: the full rule set on snake_cased bodies. */
@Controller({ path: LEADS.path, version: '2' })
@ApiTags(LEADS.tag.name)
export class V2LeadsController extends writableRoutes(LEADS) {
  constructor(private readonly leads: LeadsService) {
    super();
  }

  @CreateRoute(LEADS, 'v2', leadInputV2Schema())
  async create(
    @CurrentEnterprise() enterpriseId: string,
    @ResourceBody(V2LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.writes.run(write, (db) => this.leads.create(enterpriseId, changes, db)));
  }

  /** An update answers `{data: lead}`. */
  @UpdateRoute(LEADS, 'v2', leadInputV2Schema())
  async update(
    @Param('id', new RecordIdPipe(LEADS.model)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @ResourceBody(V2LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.writes.run(write, (db) => this.leads.update(id, enterpriseId, changes, db)));
  }
}
