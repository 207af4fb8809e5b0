import { Global, Module, type DynamicModule } from '@nestjs/common';
import { PoolReader, PREPARED_STATEMENTS } from './pool-reader.js';

/** The request path's reader of the database, one per application, for every module. */
@Global()
@Module({})
export class PoolReaderModule {
  /**
   * `prepare`: name statements (see PoolReader). Never on the embedded server: it runs every
   * connection in one backend session, so a name one pool connection prepared would clash with
   * the same name prepared by the next.
   */
  static forRoot(prepare: boolean): DynamicModule {
    return {
      module: PoolReaderModule,
      providers: [PoolReader, { provide: PREPARED_STATEMENTS, useValue: prepare }],
      exports: [PoolReader],
    };
  }
}
