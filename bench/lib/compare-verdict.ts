/** What the verdict reads of one process's rounds of a scenario. */
export interface ProcessFigures {
  readonly requestsPerSecond: number;
  readonly cpuUsPerRequest: number;
}

export type VerdictWord = 'slower' | 'same' | 'faster';

export interface Judgement {
  /** This build's req/s (mean of its two processes) over REF's (mean of its two). */
  readonly ratio: number;
  /** The larger of the two builds' own spreads: two identical processes' difference over their mean. */
  readonly spread: number;
  /** This build's CPU time per request over REF's, each the mean of its two processes. */
  readonly cpuRatio: number;
  readonly verdict: VerdictWord;
}

/** Below this the identical processes' difference is not trusted as the spread. */
export const MIN_SPREAD = 0.03;

const mean = (pair: readonly [number, number]) => (pair[0] + pair[1]) / 2;

/** Two identical processes' difference in req/s over their mean. */
export function spreadOf([a, b]: readonly [ProcessFigures, ProcessFigures]): number {
  return Math.abs(a.requestsPerSecond - b.requestsPerSecond) / mean([a.requestsPerSecond, b.requestsPerSecond]);
}

/**
 * Slower or faster only beyond what two processes of one build differ by: each build runs twice,
 * since a process's own luck (where its code and heap landed) moves its throughput by a few per
 * cent, the reference's as much as this build's.
 */
export function judge(
  ref: readonly [ProcessFigures, ProcessFigures],
  ours: readonly [ProcessFigures, ProcessFigures],
): Judgement {
  const ratio =
    mean([ours[0].requestsPerSecond, ours[1].requestsPerSecond]) /
    mean([ref[0].requestsPerSecond, ref[1].requestsPerSecond]);
  const spread = Math.max(spreadOf(ref), spreadOf(ours));
  const margin = Math.max(spread, MIN_SPREAD);
  const verdict = ratio > 1 + margin ? 'faster' : ratio < 1 - margin ? 'slower' : 'same';
  const cpuRatio =
    mean([ours[0].cpuUsPerRequest, ours[1].cpuUsPerRequest]) / mean([ref[0].cpuUsPerRequest, ref[1].cpuUsPerRequest]);
  return { ratio, spread, cpuRatio, verdict };
}

/** A first run's verdict after its confirmation on fresh processes (when it needed one). */
export interface ConfirmedVerdict {
  readonly verdict: VerdictWord;
  /** Why a first `slower` was not kept; absent when the verdict is the first run's. */
  readonly unconfirmed?: string;
}

/** Whether a first run's verdict must be measured again on four fresh processes before it counts. */
export function needsConfirmation(first: Judgement): boolean {
  return first.verdict === 'slower';
}

/**
 * A `slower` counts only when four fresh processes (new luck for all four) find it again. One run
 * of about 22 scenarios gives one to three `slower` verdicts that the next run of the same two
 * builds does not repeat (docs/decisions/0872); a real regression, such as a tenth more CPU per
 * request, is found in both.
 */
export function confirm(first: Judgement, again: Judgement | undefined): ConfirmedVerdict {
  if (!needsConfirmation(first)) return { verdict: first.verdict };
  if (!again) throw new Error('a slower verdict needs its confirmation run');
  if (again.verdict === 'slower') return { verdict: 'slower' };
  return {
    verdict: 'same',
    unconfirmed: `slower at ${first.ratio.toFixed(2)}, ${again.verdict} at ${again.ratio.toFixed(2)} on fresh processes`,
  };
}
