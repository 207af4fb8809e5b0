import { describe, expect, it } from '@jest/globals';
import { ServiceUnavailableException } from '@nestjs/common';
import { EnterpriseBulkhead } from '../../src/common/tenancy/enterprise-bulkhead.js';

describe('the bulkhead per enterprise', () => {
  it('admits up to its limit per enterprise; other enterprises are not counted against it', async () => {
    const bulkhead = new EnterpriseBulkhead(2, 1_000);
    const firstOfA = await bulkhead.enter('a');
    const secondOfA = await bulkhead.enter('a');
    let third = false;
    const waiting = Promise.resolve(bulkhead.enter('a')).then((leave) => {
      third = true;
      return leave;
    });
    const other = await bulkhead.enter('b');
    expect(bulkhead.active('a')).toBe(2);
    expect(bulkhead.active('b')).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(third).toBe(false);
    other();
    expect(bulkhead.active('b')).toBe(0);
    expect(third).toBe(false);
    firstOfA();
    const thirdOfA = await waiting;
    expect(third).toBe(true);
    secondOfA();
    thirdOfA();
    expect(bulkhead.active('a')).toBe(0);
  });

  it('gives a free place at once, without a promise; only a full compartment answers one', () => {
    const bulkhead = new EnterpriseBulkhead(1, 1_000);
    const first = bulkhead.enter('a');
    expect(typeof first).toBe('function');
    const second = bulkhead.enter('a');
    expect(second).toBeInstanceOf(Promise);
    (first as () => void)();
    return (second as Promise<() => void>).then((leave) => leave());
  });

  it('hands a freed place to the longest waiter, and a place is given back once however often it is released', async () => {
    const bulkhead = new EnterpriseBulkhead(1, 1_000);
    const first = await bulkhead.enter('a');
    const order: string[] = [];
    const second = Promise.resolve(bulkhead.enter('a')).then((leave) => (order.push('second'), leave));
    const third = Promise.resolve(bulkhead.enter('a')).then((leave) => (order.push('third'), leave));
    first();
    first();
    const leaveSecond = await second;
    expect(order).toEqual(['second']);
    expect(bulkhead.active('a')).toBe(1);
    leaveSecond();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(bulkhead.active('a')).toBe(0);
  });

  it('refuses with 503 a request that waited its bound, and forgets it', async () => {
    const bulkhead = new EnterpriseBulkhead(1, 30);
    const held = await bulkhead.enter('a');
    const refused = bulkhead.enter('a');
    await expect(refused).rejects.toBeInstanceOf(ServiceUnavailableException);
    await expect(refused).rejects.toMatchObject({
      response: { message: 'Too many requests of this enterprise are in progress; try again shortly.' },
    });
    held();
    expect(bulkhead.active('a')).toBe(0);
    (await bulkhead.enter('a'))();
  });

  it('refuses sooner a request that has less of its bound left (it waited for its record before)', async () => {
    const bulkhead = new EnterpriseBulkhead(1, 60_000);
    const held = await bulkhead.enter('a');
    const started = performance.now();
    await expect(bulkhead.enter('a', 30)).rejects.toBeInstanceOf(ServiceUnavailableException);
    // Refused on its own short wait, not the bulkhead's minute.
    expect(performance.now() - started).toBeLessThan(30_000);
    held();
    expect(bulkhead.active('a')).toBe(0);
  });
});
