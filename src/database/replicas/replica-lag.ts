import type { Lsn } from './lsn.js';

interface Sample {
  readonly at: number;
  readonly lsn: Lsn;
}

/**
 * How far behind a standby is, in time: the primary's WAL position is sampled at each probe, and
 * a standby whose replay position is below a sample is at least as old as that sample. On an idle
 * primary nothing moves and nothing is behind (unlike pg_last_xact_replay_timestamp, which grows
 * while nothing is written). Precise to one probe interval.
 */
export class PrimaryPositions {
  private readonly samples: Sample[] = [];

  constructor(private readonly keepMs: number) {}

  add(at: number, lsn: Lsn): void {
    this.samples.push({ at, lsn });
    while (this.samples.length > 2 && (this.samples[0]?.at ?? at) < at - this.keepMs) this.samples.shift();
  }

  get latest(): Lsn | undefined {
    return this.samples.at(-1)?.lsn;
  }

  /**
   * Milliseconds since the primary first held a position the standby has not replayed; 0 when
   * it replayed the latest sample, undefined before the first sample.
   */
  lagMs(replayed: Lsn, now: number): number | undefined {
    const latest = this.samples.at(-1);
    if (latest === undefined) return undefined;
    if (replayed >= latest.lsn) return 0;
    const firstAhead = this.samples.find((sample) => sample.lsn > replayed) ?? latest;
    return Math.max(0, now - firstAhead.at);
  }
}
