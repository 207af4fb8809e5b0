import '@nestjs/common';
import '@nestjs/core';
import { createRequire } from 'node:module';

/**
 * `@nestjs/throttler` as the rest of the code uses it. Its build is CommonJS and `require()`s
 * `@nestjs/common` and `@nestjs/core`, which are ES modules. Imported statically, it would be
 * run while the importing module graph is still being linked (Jest does so), before those two
 * have run: a `require()` of an ES module of the same, unfinished graph, refused as a cycle
 * ("Cannot require() ES Module ... in a cycle"). Required here instead, it runs when this module
 * runs, after the two imports above have.
 */
type Throttler = typeof import('@nestjs/throttler');

const throttler = createRequire(import.meta.url)('@nestjs/throttler') as Throttler;

export const {
  getStorageToken,
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  SkipThrottle,
  Throttle,
  ThrottlerGuard,
  ThrottlerModule,
} = throttler;
export type ThrottlerGuard = import('@nestjs/throttler').ThrottlerGuard;
export type { ThrottlerModuleOptions, ThrottlerRequest, ThrottlerStorage } from '@nestjs/throttler';
