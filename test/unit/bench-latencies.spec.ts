import { describe, expect, it } from '@jest/globals';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { mergeLatencies } from '../../bench/lib/load.js';

/** A round's latencies as the bench's autocannon runner sends them: µs, HdrHistogram compressed base64. */
function round(latenciesUs: number[]): string {
  const histogram = build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const us of latenciesUs) histogram.recordValue(us);
  return encodeIntoCompressedBase64(histogram);
}

describe('the benchmark merges rounds into one latency distribution', () => {
  it('takes p50 and p99 over every request of every round, in ms to a tenth', () => {
    // 1,000 answers at 6.9 ms; one round also has 15 at 40 ms (1.5% of its own answers).
    const calm = round(Array.from({ length: 1000 }, () => 6_900));
    const stalled = round([...Array.from({ length: 985 }, () => 6_900), ...Array.from({ length: 15 }, () => 40_000)]);
    const alone = mergeLatencies([stalled]);
    expect(alone.p99).toBeCloseTo(40, 1);
    const merged = mergeLatencies([calm, stalled, calm]);
    // 15 of 3,000 answers (0.5%) are slow: the scenario's p99 is the common latency, not the worst round's.
    expect(merged.p50).toBeCloseTo(6.9, 1);
    expect(merged.p99).toBeCloseTo(6.9, 1);
    expect(mergeLatencies([merged.latencies]).p99).toBe(merged.p99);
  });
});
