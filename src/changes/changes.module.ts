import { Module } from '@nestjs/common';
import { ChangesController } from './changes.controller.js';
import { ChangesService } from './changes.service.js';
import { PresentedChanges } from './presented-changes.js';

@Module({
  controllers: [ChangesController],
  providers: [ChangesService, PresentedChanges],
  exports: [PresentedChanges],
})
export class ChangesModule {}
