import { Global, Module, type DynamicModule } from '@nestjs/common';
import { FieldCipher } from '../crypto/field-cipher.js';
import { APP_CONFIG, type AppConfig } from './app-config.js';
import { REDIS_CONNECTOR, redisConnector } from './redis-connector.js';

/**
 * Makes the configuration read at start-up, and what derives from it (the field cipher, how to
 * open Redis when REDIS_URL is set), injectable.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: FieldCipher, useValue: new FieldCipher(config.encryptionKeys) },
        { provide: REDIS_CONNECTOR, useFactory: () => redisConnector(config) },
      ],
      exports: [APP_CONFIG, FieldCipher, REDIS_CONNECTOR],
    };
  }
}
