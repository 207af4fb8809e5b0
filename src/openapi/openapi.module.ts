import { Module } from '@nestjs/common';
import { DocsController } from './docs.controller.js';
import { OpenApiDocuments } from './openapi-documents.service.js';
import { OpenApiController } from './openapi.controller.js';

@Module({
  controllers: [OpenApiController, DocsController],
  providers: [OpenApiDocuments],
  exports: [OpenApiDocuments],
})
export class OpenApiModule {}
