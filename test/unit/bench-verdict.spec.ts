import { describe, expect, it } from '@jest/globals';
import { confirm, judge, MIN_SPREAD, needsConfirmation, type ProcessFigures } from '../../bench/lib/compare-verdict.js';

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

  describe('confirmation on fresh processes', () => {
    const slower = judge([at(1000), at(1000)], [at(880), at(880)]);
    const sameAgain = judge([at(1000), at(1010)], [at(990), at(1000)]);

    it('asks for it only when the first run is slower', () => {
      expect(needsConfirmation(slower)).toBe(true);
      expect(needsConfirmation(sameAgain)).toBe(false);
      expect(needsConfirmation(judge([at(1000), at(1000)], [at(1200), at(1200)]))).toBe(false);
    });

    it('keeps a slower verdict that fresh processes find again', () => {
      expect(confirm(slower, judge([at(1000), at(990)], [at(890), at(900)]))).toEqual({ verdict: 'slower' });
    });

    it('drops a slower verdict that fresh processes do not repeat, and says so', () => {
      const confirmed = confirm(slower, sameAgain);
      expect(confirmed.verdict).toBe('same');
      expect(confirmed.unconfirmed).toBe('slower at 0.88, same at 0.99 on fresh processes');
    });

    it('leaves other verdicts as they were, and refuses a slower one without its confirmation', () => {
      expect(confirm(sameAgain, undefined)).toEqual({ verdict: 'same' });
      expect(() => confirm(slower, undefined)).toThrow('confirmation');
    });
  });
});
