import { Global, Module } from '@nestjs/common';
import { IdempotentWrites } from './idempotent-writes.service.js';

/**
 * `IdempotentWrites` for every writable resource's controllers: one instance in the application,
 * so one purge timer and one shutdown wait, whichever module writes.
 */
@Global()
@Module({ providers: [IdempotentWrites], exports: [IdempotentWrites] })
export class IdempotencyModule {}
