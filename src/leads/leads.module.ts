import { Module } from '@nestjs/common';
import { LeadsService } from './leads.service.js';
import { V1LeadsController } from './v1/leads.controller.js';
import { V2LeadsController } from './v2/leads.controller.js';

@Module({
  controllers: [V1LeadsController, V2LeadsController],
  providers: [LeadsService],
})
export class LeadsModule {}
