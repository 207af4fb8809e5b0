import { Module } from '@nestjs/common';
import { PreparedStatementsCheck } from '../database/prepared-statements-check.js';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';

@Module({ controllers: [HealthController], providers: [HealthService, PreparedStatementsCheck] })
export class HealthModule {}
