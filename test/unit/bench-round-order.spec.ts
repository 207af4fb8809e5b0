import { describe, expect, it } from '@jest/globals';
import { roundOrder } from '../../bench/lib/round-order.js';

describe('bench:compare round order', () => {
  const rounds = [0, 1, 2, 3].map(roundOrder);

  it('runs each of the four servers once per round', () => {
    for (const order of rounds) expect([...order].sort()).toEqual([0, 1, 2, 3]);
  });

  it('puts each server once in each place over four rounds', () => {
    for (let place = 0; place < 4; place++) expect(rounds.map((order) => order[place]).sort()).toEqual([0, 1, 2, 3]);
  });

  it('runs each server right after each other server exactly once over four rounds', () => {
    const follows = new Map<string, number>();
    for (const order of rounds)
      for (let i = 1; i < order.length; i++) {
        const pair = `${order[i - 1]}>${order[i]}`;
        follows.set(pair, (follows.get(pair) ?? 0) + 1);
      }
    expect(follows.size).toBe(12);
    expect([...follows.values()].every((count) => count === 1)).toBe(true);
  });

  it('starts again after four rounds', () => {
    expect(roundOrder(4)).toEqual(roundOrder(0));
    expect(roundOrder(7)).toEqual(roundOrder(3));
  });
});
