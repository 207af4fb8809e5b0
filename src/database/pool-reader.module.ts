import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import type { DatabaseTarget } from './data-source-options.js';
import { PoolReader, PREPARED_STATEMENTS } from './pool-reader.js';
import { DATABASE_TARGET } from './database-target-token.js';
import { ReadRouter } from './replicas/read-router.js';
import { ReplicaSet } from './replicas/replica-set.js';

/**
 * The request path's readers of the database, one per application, for every module: the
 * primary's (PoolReader) and the router that sends a request's reads to a replica when
 * DATABASE_REPLICA_URLS names any (ReadRouter); and the database the application was opened on
 * (DATABASE_TARGET), for a part that opens connections of its own.
 */
@Global()
@Module({})
export class PoolReaderModule {
  /**
   * Statements are named (see PoolReader) as DATABASE_PREPARED_STATEMENTS says, never on the
   * embedded server: it runs every connection in one backend session, so a name one pool
   * connection prepared would clash with the same name prepared by the next.
   */
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    const prepare = config.databasePreparedStatements && database.embedded !== true;
    return {
      module: PoolReaderModule,
      providers: [
        PoolReader,
        ReplicaSet,
        ReadRouter,
        { provide: PREPARED_STATEMENTS, useValue: prepare },
        { provide: DATABASE_TARGET, useValue: database },
      ],
      exports: [PoolReader, ReplicaSet, ReadRouter, DATABASE_TARGET],
    };
  }
}
