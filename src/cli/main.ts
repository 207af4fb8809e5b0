import { spawn } from 'node:child_process';
import { unsupportedNodeReason } from '../config/node-runtime.js';
import { createFilesPrivate } from '../database/private-data-dir.js';

/**
 * V8's heap for an import, which V8 takes only when the process starts:
 * - a larger young generation: every record becomes a few short-lived objects (its parsed JSON,
 *   the validated copy, its rows), and with the default size too many of them are still alive
 *   at each collection, so they are copied and promoted instead of dying young;
 * - a full collection once the heap has grown to 2.5 times what the last one left. V8's own
 *   factor lets the old generation reach several times the import's live heap (about 32 MB)
 *   between full collections, which put the peak resident memory at the 300 MB bound.
 */
export const IMPORT_NODE_FLAGS = ['--max-semi-space-size=32', '--heap-growing-percent=150'] as const;

/** The commands that run in a Node process of their own given `IMPORT_NODE_FLAGS`. */
const BULK_COMMANDS = new Set(['import']);

const flagName = (flag: string): string => flag.split('=')[0] ?? flag;

/**
 * The import's flags this process was not started with: one given on node's command line or in
 * `NODE_OPTIONS` is the operator's choice and is kept.
 */
function missingFlags(): string[] {
  const given = new Set(
    [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].map((flag) => flagName(flag)),
  );
  return IMPORT_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}

/**
 * Runs this same invocation in a child Node process with the flags, on the same standard
 * streams and environment; a signal sent to this process is passed on, and it ends as the
 * child did (its status, or the signal that ended it).
 */
function runWithFlags(flags: readonly string[]): Promise<never> {
  const script = process.argv[1] ?? '';
  // Listening before the child starts: a signal that arrives while it is being started is then
  // handled once spawn has returned (handlers run on a later turn of the event loop, when `child`
  // is set) and passed on, instead of ending this process by default and leaving the child
  // running (it runs its own program already before spawn returns).
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, forward);
  const child = spawn(process.execPath, [...process.execArgv, ...flags, script, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  return new Promise<never>((_, fail) => {
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      for (const name of signals) process.off(name, forward);
      if (signal !== null) process.kill(process.pid, signal);
      else process.exit(code ?? 1);
    });
  });
}

const unsupported = unsupportedNodeReason(process.versions.node);
if (unsupported) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(1);
}
createFilesPrivate();
const missing = BULK_COMMANDS.has(process.argv[2] ?? '') ? missingFlags() : [];
if (missing.length > 0) await runWithFlags(missing);
else await (await import('./cli-process.js')).runThisProcess();
