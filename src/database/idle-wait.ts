/**
 * The wait before a background loop looks again: `shortestMs` after a look that found work;
 * after one that found none, twice the last wait, up to `longestMs`. An idle process then sends
 * a statement every so often instead of every poll, and work brings it back at once.
 */
export function nextIdleWait(lastMs: number, foundWork: boolean, shortestMs: number, longestMs: number): number {
  return foundWork ? shortestMs : Math.min(longestMs, Math.max(shortestMs, lastMs * 2));
}
