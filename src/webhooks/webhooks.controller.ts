import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ErrorSchema } from '../openapi/error.schema.js';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiFormValidation } from '../openapi/api-responses.decorator.js';
import { WebhookAckSchema } from './webhook.schema.js';
import { INVALID_SIGNATURE } from './webhook-rejections.js';
import { Public } from '../common/access/public.decorator.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import { ProviderAWebhook } from './provider-a.webhook.js';
import { ProviderBWebhook } from './provider-b.webhook.js';

const PROVIDER_B_SIGNATURE = /^x-signproviderb-signature-\d+$/;

export interface WebhookAck {
  ok: true;
}

const ACK =
  'Handled, or safely ignored: an unknown document, an event that is not acted on, a terminal status reached.';
const SIGNATURE_FAILED = `The signature is missing or wrong, or no key is configured: \`${INVALID_SIGNATURE}\``;
const ID = { type: ['string', 'number'] };
const KEYWORD = { type: 'string' };

const PROVIDER_A_EVENT = {
  title: 'SignProviderAEvent',
  description:
    'The document id is `data.documentId`, else `documentId`; the keyword the first of `event`, ' +
    '`data.event`, `status`, `data.status`. Other keys are ignored.',
  type: 'object',
  properties: {
    event: KEYWORD,
    status: KEYWORD,
    documentId: ID,
    data: { type: 'object', properties: { documentId: ID, event: KEYWORD, status: KEYWORD } },
  },
};

const PROVIDER_B_EVENT = {
  title: 'SignProviderBEvent',
  description:
    'The envelope id is `data.envelopeId`, `envelopeId` or `data.envelopeSummary.envelopeId`; only ' +
    '`envelope-*` events are acted on, with the status of `data.envelopeSummary.status`, `data.status` or the ' +
    'event name. Other keys are ignored.',
  type: 'object',
  properties: {
    event: { type: 'string', examples: ['envelope-completed'] },
    envelopeId: ID,
    data: {
      type: 'object',
      properties: {
        envelopeId: ID,
        status: KEYWORD,
        envelopeSummary: { type: 'object', properties: { envelopeId: ID, status: KEYWORD } },
      },
    },
  },
};

function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

/** The two signature-provider receivers; the signature is the authentication. */
@Public()
@WithoutEnterprise()
@Controller('webhooks')
@ApiTags('Webhooks')
export class WebhooksController {
  constructor(
    private readonly providerA: ProviderAWebhook,
    private readonly providerB: ProviderBWebhook,
  ) {}

  @Post('signprovider-a')
  @HttpCode(200)
  @Operation(
    'receiveSignProviderA',
    'Provider A event',
    'A signing-document event from provider A. The signature covers the exact bytes sent.',
  )
  @ApiHeader({
    name: 'X-SignProviderA-Signature',
    required: true,
    description: 'Lowercase hex HMAC-SHA256 of the raw body, keyed with `SIGNPROVIDER_A_SECRET`.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  })
  @ApiBody({ schema: PROVIDER_A_EVENT })
  @ApiResponse({ status: 200, type: WebhookAckSchema, description: ACK })
  @ApiResponse({ status: 401, type: ErrorSchema, description: SIGNATURE_FAILED })
  @ApiFormValidation('The body is not a JSON object, or names no document (`documentId`).')
  async signProviderA(
    @Req() request: FastifyRequest,
    @Headers('x-signprovidera-signature') signature: string | undefined,
  ): Promise<WebhookAck> {
    await this.providerA.receive(rawBody(request), signature);
    return { ok: true };
  }

  @Post('signprovider-b')
  @HttpCode(200)
  @Operation(
    'receiveSignProviderB',
    'Provider B event',
    'An envelope event from provider B. The signature covers the exact bytes sent and is checked ' +
      "with the key of the envelope's enterprise. As during a key rotation, a match in any " +
      '`X-SignProviderB-Signature-N` header is enough.',
  )
  @ApiHeader({
    name: 'X-SignProviderB-Signature-1',
    required: true,
    description: "Base64 HMAC-SHA256 of the raw body, keyed with the owning enterprise's provider B key.",
    schema: { type: 'string' },
  })
  @ApiBody({ schema: PROVIDER_B_EVENT })
  @ApiResponse({ status: 200, type: WebhookAckSchema, description: ACK })
  @ApiResponse({ status: 401, type: ErrorSchema, description: SIGNATURE_FAILED })
  @ApiFormValidation('The body is not a JSON object, or names no envelope (`envelopeId`).')
  async signProviderB(@Req() request: FastifyRequest): Promise<WebhookAck> {
    const signatures = Object.entries(request.headers)
      .filter(([name]) => PROVIDER_B_SIGNATURE.test(name))
      .flatMap(([, value]) => (Array.isArray(value) ? value : value === undefined ? [] : [value]));
    await this.providerB.receive(rawBody(request), signatures);
    return { ok: true };
  }
}
