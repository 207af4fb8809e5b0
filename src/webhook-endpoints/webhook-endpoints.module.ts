import { Module } from '@nestjs/common';
import { ChangesModule } from '../changes/changes.module.js';
import { AuditModule } from '../audit/audit.module.js';
import { WebhookClock } from './webhook-clock.js';
import { WebhookDeliveryWorker } from './webhook-delivery.worker.js';
import { WebhookEndpointsController } from './webhook-endpoints.controller.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookResolver } from './webhook-resolver.js';

/** Outbound webhooks: the endpoints' routes (v2) and the delivery worker every process runs. */
@Module({
  imports: [ChangesModule, AuditModule],
  controllers: [WebhookEndpointsController],
  providers: [WebhookEndpointsService, WebhookDeliveryWorker, WebhookClock, WebhookResolver],
  exports: [WebhookDeliveryWorker, WebhookClock, WebhookResolver],
})
export class WebhookEndpointsModule {}
