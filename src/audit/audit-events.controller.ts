import { Controller, Get, Inject, Query, Req } from '@nestjs/common';
import { ApiQuery, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AdminOnly, RequiresAbility } from '../common/access/required-access.js';
import type { PageEnvelope } from '../common/http/envelopes.js';
import { listUrl, pageEnvelope, parsePage } from '../common/http/pagination.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiFormValidation, ApiPage } from '../openapi/api-responses.decorator.js';
import { AuditEventSchema } from './audit-event.schema.js';
import { auditFilter } from './audit-filter.js';
import { AUDIT_ACTIONS, listAuditEvents, type AuditEventRecord } from './audit-trail.js';

/** The enterprise's audit trail, for its admins (v2 only). */
@Controller({ path: 'audit-events', version: '2' })
@ApiTags('Audit events')
@RequiresAbility('audit:read')
@AdminOnly()
export class AuditEventsController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Operation(
    'listAuditEvents',
    'List audit events',
    "The enterprise's security-relevant actions, newest first, 100 a page: tokens issued and revoked, role " +
      'changes, failed logins, users locked out and let back in, exports and imports, key rotations, and webhook ' +
      'endpoints created, changed, deleted, rotated, replayed and disabled by the service.',
  )
  @ApiQuery({ name: 'action', required: false, schema: { type: 'string', enum: [...AUDIT_ACTIONS] } })
  @ApiQuery({
    name: 'since',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'From (inclusive)',
  })
  @ApiQuery({
    name: 'until',
    required: false,
    schema: { type: 'string', format: 'date-time' },
    description: 'Before (exclusive)',
  })
  @ApiPage(AuditEventSchema, "A page of the enterprise's audit events, newest first.")
  @ApiFormValidation('`action` is not one of the actions, or `since` / `until` is not a date and time.')
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<AuditEventRecord>> {
    const number = parsePage(query.page);
    const { records, total } = await listAuditEvents(this.dataSource, enterpriseId, auditFilter(query), number);
    return pageEnvelope(records, total, number, listUrl(request, this.config.appUrl));
  }
}
