import { describe, expect, it } from '@jest/globals';
import { pageRequest } from '../../src/common/http/pagination.js';
import { planPage } from '../../src/database/tenant-page.js';

describe('page plans: reach a page from the nearer end of the index (issue 9)', () => {
  it.each([
    // total, page, expected plan
    [250, 1, { limit: 100, offset: 0, fromNewest: true }],
    [250, 2, { limit: 100, offset: 50, fromNewest: false }],
    [250, 3, { limit: 50, offset: 0, fromNewest: false }],
    [100_000, 1, { limit: 100, offset: 0, fromNewest: true }],
    [100_000, 500, { limit: 100, offset: 49_900, fromNewest: true }],
    [100_000, 501, { limit: 100, offset: 49_900, fromNewest: false }],
    [100_000, 1000, { limit: 100, offset: 0, fromNewest: false }],
    [100, 1, { limit: 100, offset: 0, fromNewest: true }],
    [1, 1, { limit: 1, offset: 0, fromNewest: true }],
    [99, 1, { limit: 99, offset: 0, fromNewest: true }],
  ])('total %i, page %i', (total, page, plan) => {
    expect(planPage(pageRequest(page), total)).toEqual(plan);
  });

  it('has no plan for a page past the end or an empty list', () => {
    expect(planPage(pageRequest(4), 250)).toBeUndefined();
    expect(planPage(pageRequest(1), 0)).toBeUndefined();
  });

  it('covers every row exactly once across all pages, read from either end', () => {
    for (const total of [1, 99, 100, 101, 250, 1_001]) {
      const seen: number[] = [];
      for (let page = 1; page <= Math.ceil(total / 100); page++) {
        const plan = planPage(pageRequest(page), total);
        if (!plan) throw new Error('missing plan');
        // Positions counted newest first, as the list shows them.
        const start = plan.fromNewest ? plan.offset : total - plan.offset - plan.limit;
        for (let i = 0; i < plan.limit; i++) seen.push(start + i);
      }
      expect(seen).toEqual(Array.from({ length: total }, (_, i) => i));
    }
  });
});
