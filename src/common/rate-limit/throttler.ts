/**
 * `@nestjs/throttler` as the rest of the code imports it. Its build is CommonJS and `require()`s
 * `@nestjs/common` and `@nestjs/core`, which are ES modules: Node (and Jest) refuse to require an
 * ES module that is part of the module graph being evaluated but not yet run ("Cannot require()
 * ES Module ... in a cycle"). Importing both Nest packages first, here, makes sure they have run
 * before the throttler asks for them, whichever file of the application is loaded first.
 */
import '@nestjs/common';
import '@nestjs/core';

export {
  getStorageToken,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  SkipThrottle,
  ThrottlerGuard,
  ThrottlerModule,
} from '@nestjs/throttler';
export type { ThrottlerModuleOptions, ThrottlerRequest, ThrottlerStorage } from '@nestjs/throttler';
