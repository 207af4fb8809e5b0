import { describe, expect, it } from '@jest/globals';
import { judge, MIN_SPREAD, type ProcessFigures } from '../../bench/lib/compare-verdict.js';

const at = (requestsPerSecond: number, cpuUsPerRequest = 100): ProcessFigures => ({
  requestsPerSecond,
  cpuUsPerRequest,
});

describe('bench:compare verdict', () => {
  it('takes the ratio of the two builds’ means and the CPU ratio likewise', () => {
    const judged = judge([at(1000, 200), at(1000, 200)], [at(1100, 180), at(1100, 180)]);
    expect(judged.ratio).toBeCloseTo(1.1);
    expect(judged.cpuRatio).toBeCloseTo(0.9);
    expect(judged.verdict).toBe('faster');
  });

  it('counts the reference’s own spread, not only this build’s', () => {
    // This build's two processes agree; REF's differ by 8%: a 6% difference is within that.
    const judged = judge([at(960), at(1040)], [at(940), at(940)]);
    expect(judged.spread).toBeCloseTo(0.08);
    expect(judged.verdict).toBe('same');
    // With REF's processes agreeing as well, the same difference is a verdict.
    expect(judge([at(1000), at(1000)], [at(940), at(940)]).verdict).toBe('slower');
  });

  it('takes the larger spread of the two builds', () => {
    expect(judge([at(1000), at(1020)], [at(900), at(1000)]).spread).toBeCloseTo(100 / 950);
  });

  it('keeps a floor under the spread, so two processes that happen to agree make no verdict of a small difference', () => {
    const judged = judge([at(1000), at(1000)], [at(980), at(980)]);
    expect(judged.spread).toBe(0);
    expect(judged.ratio).toBeGreaterThan(1 - MIN_SPREAD);
    expect(judged.verdict).toBe('same');
  });
});
