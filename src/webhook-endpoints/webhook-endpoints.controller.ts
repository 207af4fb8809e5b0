import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { AdminOnly, RequiresAbility } from '../common/access/required-access.js';
import { auditActorOf } from '../audit/audit-trail.js';
import { ApiBody, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { OptionalBody } from '../common/http/optional-body.js';
import { DataEnvelope, type PageEnvelope } from '../common/http/envelopes.js';
import { ErrorSchema } from '../openapi/error.schema.js';
import { listUrl, pageEnvelope, parsePage } from '../common/http/pagination.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { CHANGE_TYPES } from '../changes/change-types.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import {
  ApiFormValidation,
  ApiIdempotentWrite,
  ApiOtherEnterprise,
  ApiPage,
  ApiRecord,
  ApiRecordId,
} from '../openapi/api-responses.decorator.js';
import { DESCRIPTION_MAX_CHARS, URL_MAX_CHARS } from './webhook-endpoint-input.js';
import type {
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookEndpointWithSecret,
} from './webhook-endpoint.presenter.js';
import {
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './webhook-endpoint.schema.js';
import { IdempotentWrites } from '../idempotency/idempotent-writes.service.js';
import { CurrentWrite, type WriteRequest } from '../idempotency/write-request.decorator.js';
import { WEBHOOK_ENDPOINT_MODEL, WebhookEndpointsService } from './webhook-endpoints.service.js';

const MODEL = WEBHOOK_ENDPOINT_MODEL;

const URL_PROPERTY = {
  type: 'string',
  format: 'uri',
  maxLength: URL_MAX_CHARS,
  description: 'An https URL whose host resolves to public addresses only (checked now and at every connection).',
};
const TYPES_PROPERTY = {
  type: ['array', 'null'],
  items: { type: 'string', enum: [...CHANGE_TYPES] },
  description: 'Record types to send; absent, null or empty: every type.',
};
const DESCRIPTION_PROPERTY = { type: ['string', 'null'], maxLength: DESCRIPTION_MAX_CHARS };

const INVALID_BODY =
  'A field is invalid: `{message, errors}` with the messages of each field (a url that is not https, or whose ' +
  'host resolves to a loopback, private, link-local, multicast or unspecified address, is refused here).';

/**
 * Webhook endpoints of the enterprise in the header (v2 only): an endpoint receives every
 * record of the enterprise, so only its admins manage them, and a limited token needs
 * `webhooks:manage`.
 */
@Controller({ path: 'webhook-endpoints', version: '2' })
@ApiTags('Webhook endpoints')
@RequiresAbility('webhooks:manage')
@AdminOnly()
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly writes: IdempotentWrites,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @Operation('listWebhookEndpoints', 'List webhook endpoints', "The enterprise's webhook endpoints, 100 a page.")
  @ApiPage(WebhookEndpointSchema, "A page of the enterprise's endpoints, newest first.")
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') page: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<WebhookEndpointRecord>> {
    const number = parsePage(page);
    const { records, total } = await this.endpoints.list(enterpriseId, number);
    return pageEnvelope(records, total, number, listUrl(request, this.config.appUrl));
  }

  @Post()
  @Operation(
    'createWebhookEndpoint',
    'Create a webhook endpoint',
    'From now on, every change of the types chosen is sent to the URL as a Standard Webhooks message: ' +
      '`{"type": "lead.upserted", "timestamp": ..., "data": <the change feed entry>}`, signed with the `secret` ' +
      'of this answer (shown only here and by rotate-secret).',
  )
  @ApiBody({
    schema: {
      title: 'WebhookEndpointInput',
      type: 'object',
      required: ['url'],
      properties: { url: URL_PROPERTY, types: TYPES_PROPERTY, description: DESCRIPTION_PROPERTY },
    },
    examples: {
      leadsAndPeople: {
        summary: 'Leads and people only',
        value: { url: 'https://crm.example.com/hooks/finance-intake', types: ['lead', 'person'], description: 'CRM' },
      },
      everything: { summary: 'Every change', value: { url: 'https://crm.example.com/hooks/finance-intake' } },
    },
  })
  @ApiRecord(WebhookEndpointWithSecretSchema, 'The endpoint, with its signing secret.', 201)
  @ApiFormValidation(INVALID_BODY)
  @ApiIdempotentWrite()
  async create(
    @CurrentEnterprise() enterpriseId: string,
    @Req() request: FastifyRequest,
    @Body() body: unknown,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<WebhookEndpointWithSecret>> {
    const changes = await this.endpoints.validatedForCreate(body);
    const created = await this.writes.run(write, (db) =>
      this.endpoints.insert(enterpriseId, changes, auditActorOf(request), db),
    );
    return new DataEnvelope(this.endpoints.reveal(created));
  }

  @Get(':id')
  @Operation('getWebhookEndpoint', 'Retrieve a webhook endpoint', 'An endpoint of the enterprise, by id.')
  @ApiRecord(WebhookEndpointSchema, 'The endpoint.')
  @ApiRecordId(MODEL)
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe(MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
  ): Promise<DataEnvelope<WebhookEndpointRecord>> {
    return new DataEnvelope(await this.endpoints.get(enterpriseId, id));
  }

  @Patch(':id')
  @Operation(
    'updateWebhookEndpoint',
    'Update a webhook endpoint',
    'Changes the fields sent; absent fields stay unchanged. `enabled: false` stops deliveries; `enabled: true` ' +
      'resumes them where they stopped, with the changes of the meantime one per record.',
  )
  @ApiBody({
    schema: {
      title: 'WebhookEndpointUpdate',
      type: 'object',
      properties: {
        url: URL_PROPERTY,
        types: TYPES_PROPERTY,
        description: DESCRIPTION_PROPERTY,
        enabled: { type: 'boolean' },
      },
    },
    examples: {
      enable: { summary: 'Enable again', value: { enabled: true } },
      move: { summary: 'A new URL', value: { url: 'https://crm.example.com/hooks/v2' } },
    },
  })
  @ApiRecord(WebhookEndpointSchema, 'The updated endpoint.')
  @ApiRecordId(MODEL)
  @ApiOtherEnterprise()
  @ApiFormValidation(INVALID_BODY)
  async update(
    @Param('id', new RecordIdPipe(MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @Req() request: FastifyRequest,
    @Body() body: unknown,
  ): Promise<DataEnvelope<WebhookEndpointRecord>> {
    return new DataEnvelope(await this.endpoints.update(enterpriseId, id, body, auditActorOf(request)));
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @OptionalBody()
  @Operation(
    'rotateWebhookEndpointSecret',
    'Rotate the signing secret',
    'A new secret, shown only in this answer. For 24 hours deliveries carry two signatures, one with each secret, ' +
      'so the receiver can switch to the new one at any time within them.',
  )
  @ApiRecord(WebhookEndpointWithSecretSchema, 'The endpoint, with its new signing secret.')
  @ApiRecordId(MODEL)
  @ApiOtherEnterprise()
  @ApiIdempotentWrite()
  async rotateSecret(
    @Param('id', new RecordIdPipe(MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @Req() request: FastifyRequest,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<WebhookEndpointWithSecret>> {
    const rotated = await this.writes.run(write, (db) =>
      this.endpoints.rotateSecret(enterpriseId, id, auditActorOf(request), db),
    );
    return new DataEnvelope(this.endpoints.reveal(rotated));
  }

  @Get(':id/deliveries')
  @Operation(
    'listWebhookDeliveries',
    'List recent deliveries',
    'Attempts to deliver to the endpoint in the last 7 days, newest first, 100 a page.',
  )
  @ApiPage(WebhookDeliverySchema, 'A page of attempts, newest first.')
  @ApiRecordId(MODEL)
  @ApiOtherEnterprise()
  async deliveries(
    @Param('id', new RecordIdPipe(MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') page: unknown,
    @Req() request: FastifyRequest,
  ): Promise<PageEnvelope<WebhookDeliveryRecord>> {
    const number = parsePage(page);
    const { records, total } = await this.endpoints.deliveries(enterpriseId, id, number);
    return pageEnvelope(records, total, number, listUrl(request, this.config.appUrl));
  }

  @Post(':id/replay')
  @HttpCode(202)
  @Operation(
    'replayWebhookEndpoint',
    'Deliver again from a cursor, or from the beginning',
    'The endpoint delivers again every change after `cursor` (a change feed cursor of this enterprise: a ' +
      '`next_cursor` of `GET /changes` or the `cursor` of `GET /changes/cursor`), or with `from_beginning: true` ' +
      'every change the enterprise has, each record at its latest state, with new webhook ids.',
  )
  @ApiBody({
    schema: {
      title: 'WebhookReplayInput',
      type: 'object',
      properties: {
        cursor: { type: 'string', description: 'A change feed cursor of this enterprise' },
        from_beginning: { type: 'boolean', description: 'true: from the first change, instead of a cursor' },
      },
    },
    examples: {
      fromCursor: { summary: 'From a stored cursor', value: { cursor: 'q0vB3kF1c2Vy...' } },
      fromBeginning: { summary: 'From the beginning', value: { from_beginning: true } },
    },
  })
  @ApiRecord(WebhookEndpointSchema, 'Accepted: the endpoint delivers from the cursor.', 202)
  @ApiRecordId(MODEL)
  @ApiOtherEnterprise()
  @ApiFormValidation(
    'Neither a cursor nor from_beginning, both, or a cursor that was edited, made up or issued for another enterprise.',
  )
  @ApiResponse({
    status: 410,
    type: ErrorSchema,
    description: 'The cursor was written under an encryption key that has since been retired.',
  })
  @ApiIdempotentWrite()
  async replay(
    @Param('id', new RecordIdPipe(MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @Req() request: FastifyRequest,
    @Body() body: unknown,
    @CurrentWrite() write: WriteRequest,
  ): Promise<DataEnvelope<WebhookEndpointRecord>> {
    return new DataEnvelope(
      await this.writes.run(write, (db) => this.endpoints.replay(enterpriseId, id, body, auditActorOf(request), db)),
    );
  }

  /** Last of the routes, so route-driven suites delete the endpoint after using it. */
  @Delete(':id')
  @HttpCode(204)
  @OptionalBody()
  @Operation('deleteWebhookEndpoint', 'Delete a webhook endpoint', 'Nothing more is sent to it.')
  @ApiResponse({ status: 204, description: 'Deleted.' })
  @ApiRecordId(MODEL)
  @ApiResponse({ status: 403, type: ErrorSchema, description: 'The endpoint belongs to another enterprise.' })
  async remove(
    @Param('id', new RecordIdPipe(MODEL)) id: string,
    @CurrentEnterprise() enterpriseId: string,
    @Req() request: FastifyRequest,
  ): Promise<void> {
    await this.endpoints.remove(enterpriseId, id, auditActorOf(request));
  }
}
