import { Controller, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { BareRecord, DataEnvelope } from '../../common/http/envelopes.js';
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
import { leadInputV1Schema } from './lead-input.schema.js';
import { V1LeadInputPipe } from './lead-input.pipe.js';

/** v1 leads: the small rule set, no key normalisation, extra keys kept. */
@Controller({ path: LEADS.path, version: '1' })
@ApiTags(LEADS.tag.name)
export class V1LeadsController extends writableRoutes(LEADS) {
  constructor(private readonly leads: LeadsService) {
    super();
  }

  @CreateRoute(LEADS, 'v1', leadInputV1Schema())
  async create(
    @CurrentEnterprise() enterpriseId: string,
    @ResourceBody(V1LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<LeadRecord>> {
    return new DataEnvelope(await this.writes.run(write, (db) => this.leads.create(enterpriseId, changes, db)));
  }

  /** The updated lead itself, not wrapped; the casing hook puts it in v1 casing. */
  @UpdateRoute(LEADS, 'v1', leadInputV1Schema(), {
    description: 'Absent fields stay unchanged. v1 answers the updated lead itself, not wrapped.',
    bare: { description: 'The updated lead, not wrapped in `data`.' },
  })
  async update(
    @Param('id', new RecordIdPipe(LEADS.model)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @ResourceBody(V1LeadInputPipe) changes: LeadChanges,
    @CurrentWrite() write: WriteRequest,
  ): Promise<BareRecord<LeadRecord>> {
    return new BareRecord(await this.writes.run(write, (db) => this.leads.update(id, enterpriseId, changes, db)));
  }
}
