import { Module } from '@nestjs/common';
import { ApplicationsController } from './applications.controller.js';
import { ApplicationsService } from './applications.service.js';

@Module({ controllers: [ApplicationsController], providers: [ApplicationsService] })
export class ApplicationsModule {}
