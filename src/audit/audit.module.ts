import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller.js';
import { AuditRetention } from './audit-retention.js';

/** The audit trail's route and retention; its entries are written by each audited action, in its transaction. */
@Module({ controllers: [AuditEventsController], providers: [AuditRetention], exports: [AuditRetention] })
export class AuditModule {}
