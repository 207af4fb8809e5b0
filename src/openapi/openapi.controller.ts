import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../common/access/public.decorator.js';
import { BOTH_VERSIONS, type ApiVersion } from '../common/http/api-version.js';
import { RequestApiVersion } from '../common/http/api-version.decorator.js';
import { SkipThrottle } from '../common/rate-limit/throttler.js';
import { WithoutEnterprise } from '../common/tenancy/without-enterprise.decorator.js';
import { OpenApiDocuments } from './openapi-documents.service.js';

/** `/api/v1/openapi.json` and `/api/v2/openapi.json`: public and not rate limited. */
@Controller({ path: 'openapi.json', version: BOTH_VERSIONS })
@Public()
@WithoutEnterprise()
@SkipThrottle()
@ApiExcludeController()
export class OpenApiController {
  constructor(private readonly documents: OpenApiDocuments) {}

  @Get()
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  document(@RequestApiVersion() version: ApiVersion): string {
    return this.documents.json(version);
  }
}
