import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module.js';
import { QuotesController } from './quotes.controller.js';
import { QuotesService } from './quotes.service.js';

@Module({ imports: [ApplicationsModule], controllers: [QuotesController], providers: [QuotesService] })
export class QuotesModule {}
