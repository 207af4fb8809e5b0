import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { TENANT_RESOURCES } from './resources/tenant-resources.js';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { type DatabaseTarget } from './database/data-source-options.js';
import { CountFolderModule } from './database/count-folder.module.js';
import { dataSourceOptions } from './data-source.js';
import { PoolReaderModule } from './database/pool-reader.module.js';
import { HealthModule } from './health/health.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { AuthModule } from './auth/auth.module.js';
import { AuthenticationModule } from './auth/authentication.module.js';
import { AccessGuard } from './common/access/access.guard.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { EnterprisesModule } from './enterprises/enterprises.module.js';
import { IdempotencyModule } from './idempotency/idempotency.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { ChangesModule } from './changes/changes.module.js';
import { ResourcesModule } from './resources/resources.module.js';
import { WebhookEndpointsModule } from './webhook-endpoints/webhook-endpoints.module.js';
import { AuditModule } from './audit/audit.module.js';
import { MembershipsModule } from './memberships/memberships.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRoot({
          ...dataSourceOptions({ ...database, lockTimeoutMs: config.databaseLockTimeoutMs }, config.migrationsRun),
          retryAttempts: 0,
        }),
        PoolReaderModule.forRoot(config, database),
        CountFolderModule,
        AuthenticationModule,
        RateLimitModule,
        HealthModule,
        WebhooksModule,
        AuthModule,
        EnterprisesModule,
        ResourcesModule,
        IdempotencyModule,
        // The writable resources' controllers, named by their descriptors.
        ...TENANT_RESOURCES.flatMap((resource) =>
          resource.writeModule ? [resource.writeModule().then((module) => ({ module: module as Type }))] : [],
        ),
        ChangesModule,
        WebhookEndpointsModule,
        AuditModule,
        MembershipsModule,
        OpenApiModule,
      ],
      providers: [
        // Token, rate limit, 401, enterprise: the order of checks of every route, in one guard.
        { provide: APP_GUARD, useClass: AccessGuard },
        // No global interceptor: v1 records are cased by a hook on v1 answers (caseV1Answers),
        // and the v2 key normaliser is bound to the routes that read a body (the v2 writes).
      ],
    };
  }
}
