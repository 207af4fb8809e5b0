import { execFileSync } from 'node:child_process';

/** The direct children of a process (none once it is gone), from `pgrep -P`. */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** Every process below `pid` (children, grandchildren, ...). */
export function descendants(pid: number): number[] {
  return childPids(pid).flatMap((child) => [child, ...descendants(child)]);
}

/**
 * Sends `signal` to one process, refusing a missing pid: `process.kill(0)` would signal this
 * test's whole process group (Jest and whatever started it), and a negative pid a group.
 */
export function signalProcess(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) {
    throw new Error(`no process to send ${signal} to (pid ${String(pid)})`);
  }
  process.kill(pid, signal);
}
