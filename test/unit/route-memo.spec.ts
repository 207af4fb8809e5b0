import { describe, expect, it } from '@jest/globals';
import { RouteMemo } from '../../src/common/http/route-memo.js';

describe('RouteMemo', () => {
  const handler = () => undefined;
  class First {}
  class Second {}

  it('works a route’s value out once, a null value included', () => {
    let computed = 0;
    const memo = new RouteMemo<{ n: number } | null>((_h, controller) => {
      computed++;
      return controller === First ? null : { n: computed };
    });
    expect(memo.of(handler, First)).toBeNull();
    expect(memo.of(handler, First)).toBeNull();
    expect(computed).toBe(1);
    // One handler serving two controllers is two routes.
    expect(memo.of(handler, Second)).toEqual({ n: 2 });
    expect(memo.of(handler, Second)).toEqual({ n: 2 });
    expect(computed).toBe(2);
  });
});
