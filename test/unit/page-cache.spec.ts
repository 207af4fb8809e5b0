import { describe, expect, it } from '@jest/globals';
import { PageCache } from '../../src/common/http/conditional/page-cache.js';

describe('PageCache', () => {
  it('keeps pages up to its size in bytes, the least recently used leaving first', () => {
    const cache = new PageCache(300);
    const tag = (n: number) => `W/"tag-${n}"`;
    cache.set(tag(1), Buffer.alloc(100, 1));
    cache.set(tag(2), Buffer.alloc(100, 2));
    expect(cache.get(tag(1))?.[0]).toBe(1);
    cache.set(tag(3), Buffer.alloc(100, 3));
    expect(cache.get(tag(2))).toBeUndefined();
    expect(cache.get(tag(1))?.[0]).toBe(1);
    expect(cache.get(tag(3))?.[0]).toBe(3);
    expect(cache.size).toBeLessThanOrEqual(300);
  });

  it('does not keep a page larger than the whole cache', () => {
    const cache = new PageCache(100);
    cache.set('W/"big"', Buffer.alloc(101));
    expect(cache.get('W/"big"')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('size 0 keeps nothing', () => {
    const cache = new PageCache(0);
    expect(cache.enabled).toBe(false);
    cache.set('W/"a"', Buffer.alloc(1));
    expect(cache.get('W/"a"')).toBeUndefined();
  });
});
