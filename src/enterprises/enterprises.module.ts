import { Module } from '@nestjs/common';
import { EnterprisesController } from './enterprises.controller.js';
import { EnterprisesService } from './enterprises.service.js';

@Module({ controllers: [EnterprisesController], providers: [EnterprisesService] })
export class EnterprisesModule {}
