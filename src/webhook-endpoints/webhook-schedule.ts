/**
 * When a failing endpoint is tried again, and when it is given up on. Pure functions of the
 * number of failures and the clock, so tests can check the figures without waiting.
 */

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

/** The delay before the first retry, before jitter: the first retry comes within it. */
export const FIRST_RETRY_MS = 5 * SECOND;
/** Each retry waits this many times longer than the one before ... */
export const BACKOFF_FACTOR = 4;
/** ... up to this; nine retries span about a day, and retries go on at this pace after it. */
export const MAX_RETRY_MS = 12 * HOUR;
/** An endpoint failing without a single success for this long is disabled. */
export const FAILURE_WINDOW_MS = 3 * DAY;

export const DISABLED_AFTER_FAILURES = 'Every delivery failed for 3 days; enable the endpoint again to resume.';
/**
 * Why an endpoint saved as `http:` (while private URLs were allowed) is paused by a process that
 * does not allow them: it never sends a delivery in clear.
 */
export const DISABLED_PLAIN_HTTP =
  'The url is http:, which this service delivers to only in local development: change it to an https URL to resume.';

/**
 * The wait after the `failures`-th failure in a row (1 for the first): exponential, capped, with
 * jitter (a random half of it taken off), so endpoints that failed together do not retry together.
 */
export function retryDelayMs(failures: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, failures - 1);
  const base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * BACKOFF_FACTOR ** Math.min(exponent, 20));
  return Math.round(base / 2 + (random() * base) / 2);
}

/** Whether an endpoint failing since `failingSince` has now failed for the whole window. */
export function failureWindowOver(failingSince: Date, now: Date): boolean {
  return now.getTime() - failingSince.getTime() >= FAILURE_WINDOW_MS;
}
