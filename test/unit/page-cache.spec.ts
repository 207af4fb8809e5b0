import { brotliDecompressSync, gunzipSync } from 'node:zlib';
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

  it('compresses a kept page once per encoding and keeps the result beside it', () => {
    const cache = new PageCache(1_000_000);
    const plain = Buffer.from(JSON.stringify({ data: Array.from({ length: 50 }, (_, i) => ({ id: i, name: 'Zoë' })) }));
    cache.set('W/"p"', plain);
    const held = cache.size;

    const gzip = cache.encoded('W/"p"', plain, 'gzip');
    expect(gzip.encoding).toBe('gzip');
    expect(gunzipSync(gzip.body).equals(plain)).toBe(true);
    expect(cache.size).toBe(held + gzip.body.length + 'gzip W/"p"'.length);
    expect(cache.encoded('W/"p"', plain, 'gzip').body).toBe(gzip.body);

    const br = cache.encoded('W/"p"', plain, 'br');
    expect(brotliDecompressSync(br.body).equals(plain)).toBe(true);
    expect(cache.encoded('W/"p"', plain, undefined)).toEqual({ body: plain });
  });

  it('leaves a kept page below the compression threshold plain, as the compression hook does', () => {
    const cache = new PageCache(1_000_000);
    const small = Buffer.from('{"data":[]}');
    cache.set('W/"s"', small);
    expect(cache.encoded('W/"s"', small, 'gzip')).toEqual({ body: small });
  });
});
