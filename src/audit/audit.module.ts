import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller.js';

/** The audit trail's route; its entries are written by each audited action, in its transaction. */
@Module({ controllers: [AuditEventsController] })
export class AuditModule {}
