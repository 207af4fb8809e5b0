/** At most this many problems are kept with their paths; the rest are only counted. */
export const MAX_REPORTED_PROBLEMS = 1000;

/** The first problems of an import, in file order, and how many were found in all. */
export class ProblemList {
  readonly kept: string[] = [];
  private uncounted = 0;

  add(problem: string): void {
    if (this.kept.length < MAX_REPORTED_PROBLEMS) this.kept.push(problem);
    else this.uncounted++;
  }

  /** Problems found but not fetched (a check that only counted beyond the cap). */
  addUncounted(count: number): void {
    this.uncounted += count;
  }

  /** How many more problems are kept with their text. */
  room(): number {
    return MAX_REPORTED_PROBLEMS - this.kept.length;
  }

  get total(): number {
    return this.kept.length + this.uncounted;
  }

  get empty(): boolean {
    return this.total === 0;
  }
}
