import { Module } from '@nestjs/common';
import { ProviderAWebhook } from './provider-a.webhook.js';
import { ProviderBWebhook } from './provider-b.webhook.js';
import { SigningDocumentsService } from './signing-documents.service.js';
import { WebhooksController } from './webhooks.controller.js';

@Module({
  controllers: [WebhooksController],
  providers: [SigningDocumentsService, ProviderAWebhook, ProviderBWebhook],
})
export class WebhooksModule {}
