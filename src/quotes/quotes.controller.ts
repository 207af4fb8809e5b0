import { Controller, Get, Inject, Param, Query, Req } from '@nestjs/common';
import { ConditionalRead } from '../changes/conditional-read.interceptor.js';
import type { FastifyRequest } from 'fastify';
import { BOTH_VERSIONS, type ApiVersion } from '../common/http/api-version.js';
import { RequestApiVersion } from '../common/http/api-version.decorator.js';
import { DataEnvelope, PageEnvelope } from '../common/http/envelopes.js';
import { listUrl, pageEnvelope, pageRequest, parsePage } from '../common/http/pagination.js';
import { ReadOnlyRoutes } from '../common/http/read-only-routes.js';
import { RecordIdPipe } from '../common/http/record-id.pipe.js';
import { CurrentEnterprise } from '../common/tenancy/current-enterprise.decorator.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { ApiTags } from '@nestjs/swagger';
import { Operation } from '../openapi/api-operation.decorator.js';
import { ApiPage, ApiRecord, ApiRecordId, ApiOtherEnterprise } from '../openapi/api-responses.decorator.js';
import type { QuoteRecord } from './quote.presenter.js';
import { QuoteSchema } from './quote.schema.js';
import { QuotesService } from './quotes.service.js';

/**
 * Read-only in both versions. R5: the v1 list embeds each quote's application, the v2 list
 * leaves the key out; both retrieves embed it. Otherwise v1 is the casing step (R1, R2).
 */
@Controller({ path: 'quotes', version: BOTH_VERSIONS })
@ApiTags('Quotes')
export class QuotesController extends ReadOnlyRoutes {
  constructor(
    private readonly quotes: QuotesService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  @Get()
  @ConditionalRead('quote')
  @Operation('listQuotes', 'List quotes', "The enterprise's quotes, 100 a page.")
  @ApiPage(
    QuoteSchema,
    "A page of the enterprise's quotes, newest first. v2 leaves each quote's `application` out; v1 embeds it.",
  )
  async list(
    @CurrentEnterprise() enterpriseId: string,
    @Query('page') pageParam: unknown,
    @Req() request: FastifyRequest,
    @RequestApiVersion() version: ApiVersion,
  ): Promise<PageEnvelope<QuoteRecord>> {
    const page = parsePage(pageParam);
    const { records, total } = await this.quotes.listPage(enterpriseId, pageRequest(page), version === 'v1');
    return pageEnvelope(records, total, page, listUrl(request, this.config.appUrl));
  }

  @Get(':id')
  @ConditionalRead('quote')
  @Operation('getQuote', 'Retrieve a quote', 'A quote of the enterprise in the header, by id, with its application.')
  @ApiRecord(QuoteSchema, 'The quote. Its `application` is embedded, null when it has none.')
  @ApiRecordId('Quote')
  @ApiOtherEnterprise()
  async retrieve(
    @Param('id', new RecordIdPipe('Quote')) id: string,
    @CurrentEnterprise() enterpriseId: string,
  ): Promise<DataEnvelope<QuoteRecord>> {
    return new DataEnvelope(await this.quotes.get(id, enterpriseId));
  }
}
