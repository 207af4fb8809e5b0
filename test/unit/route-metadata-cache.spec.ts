import { describe, expect, it, jest } from '@jest/globals';
import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadataCache } from '../../src/common/rate-limit/route-metadata-cache.js';
import { SkipThrottle } from '../../src/common/rate-limit/throttler.js';

@SkipThrottle()
class SkippedController {
  list(this: void): void {}
}

class CountedController {
  @SetMetadata('limit', 5)
  list(this: void): void {}
  other(this: void): void {}
}

describe('the throttler’s route metadata cache', () => {
  const cases: [string, Parameters<Reflector['getAllAndOverride']>[1]][] = [
    ['a skipped controller', [SkippedController.prototype.list, SkippedController]],
    ['a handler with its own metadata', [CountedController.prototype.list, CountedController]],
    ['a handler without', [CountedController.prototype.other, CountedController]],
  ];

  it.each(cases)('answers what Nest’s Reflector answers, for %s', (_what, targets) => {
    const cache = new RouteMetadataCache();
    for (const key of ['THROTTLER:SKIPdefault', 'limit', 'missing'])
      expect({ key, value: cache.getAllAndOverride<unknown>(key, targets) }).toEqual({
        key,
        value: new Reflector().getAllAndOverride<unknown>(key, targets),
      });
  });

  it('reads each key of a route once, however many requests ask', () => {
    const cache = new RouteMetadataCache();
    const targets = [CountedController.prototype.list, CountedController];
    const reads = jest.spyOn(Reflect, 'getMetadata');
    try {
      for (let i = 0; i < 10; i++) expect(cache.getAllAndOverride('limit', targets)).toBe(5);
      const first = reads.mock.calls.length;
      expect(first).toBeGreaterThan(0);
      for (let i = 0; i < 10; i++) cache.getAllAndOverride('limit', targets);
      expect(reads.mock.calls.length).toBe(first);
    } finally {
      reads.mockRestore();
    }
  });
});
