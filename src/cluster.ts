import cluster, { type Worker } from 'node:cluster';
import { logFatal, processLog } from './observability/process-log.js';

export interface WorkerPlan {
  /** Runs once in the primary before any worker starts (migrations). */
  prepare(): Promise<void>;
  /** Runs in each worker (and in the single process when there is one). */
  serve(): Promise<void>;
  /** Runs in the primary once the workers are forked (the metrics of all of them). */
  serveMetrics(): Promise<void>;
}

/** How the primary replaces workers that die before they listen (a start failure). */
export interface RestartPolicy {
  /** The wait before the first replacement after a start failure; doubled each time after. */
  readonly firstDelayMs: number;
  /** The longest wait between replacements: the primary keeps trying at this pace for as long as it takes. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = { firstDelayMs: 500, maxDelayMs: 10_000 };

/**
 * The exit code of a worker that cannot start because of its configuration (a wrong variable,
 * an APP_KEY that does not read the data): a cause no restart fixes (EX_CONFIG of sysexits.h).
 */
export const EXIT_CONFIGURATION = 78;

/** The wait before replacing a worker after `failures` start failures in a row (1, 2, ...). */
export function restartDelay(failures: number, policy: RestartPolicy): number {
  if (failures <= 0) return 0;
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(failures - 1, 30));
}

/** How long a primary that gives up waits for its workers to stop before it exits anyway. */
const GIVE_UP_GRACE_MS = 10_000;

/**
 * WEB_CONCURRENCY=N: the primary prepares once, then forks N workers sharing one port
 * (node:cluster). A worker that dies after it listened is replaced at once; one that dies before
 * it listened is replaced after a growing wait (capped), for as long as it takes: a cause outside
 * the process (the database or Redis down) ends by itself, and the workers still listening keep
 * serving meanwhile: they are never stopped because another cannot start. Only a worker that
 * cannot start because of its configuration (exit code EXIT_CONFIGURATION) makes the primary stop
 * everything, with one line saying so and exit code 1: no restart would fix that.
 */
export async function runWorkers(
  count: number,
  plan: WorkerPlan,
  policy: RestartPolicy = DEFAULT_RESTART_POLICY,
): Promise<void> {
  if (count <= 1) {
    await plan.prepare();
    await plan.serve();
    return;
  }
  if (cluster.isWorker) {
    await plan.serve();
    return;
  }
  await plan.prepare();
  let stopping = false;
  let startFailures = 0;
  const listening = new WeakSet<Worker>();
  const fork = () => cluster.fork({ MIGRATIONS_RUN: 'false', FINANCE_INTAKE_WORKER: '1' });
  cluster.on('listening', (worker) => {
    listening.add(worker);
    startFailures = 0;
  });
  for (let i = 0; i < count; i++) fork();
  await plan.serveMetrics();

  const stopAll = (signal: NodeJS.Signals, exitCode: number) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    let remaining = Object.keys(cluster.workers ?? {}).length;
    if (remaining === 0) process.exit(exitCode);
    cluster.on('exit', () => {
      remaining -= 1;
      if (remaining <= 0) process.exit(exitCode);
    });
    if (exitCode !== 0) setTimeout(() => process.exit(exitCode), GIVE_UP_GRACE_MS).unref();
  };

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const exit = signal ?? code;
    if (listening.has(worker)) {
      processLog.warn({ worker: worker.process.pid, exit }, 'Worker exited; starting another.');
      fork();
      return;
    }
    if (code === EXIT_CONFIGURATION) {
      logFatal(
        { workers: count, exit },
        'A worker cannot start with this configuration (its line above says why); stopping, as no restart would fix it.',
      );
      stopAll('SIGTERM', 1);
      return;
    }
    startFailures += 1;
    const delay = restartDelay(startFailures, policy);
    processLog.warn(
      { worker: worker.process.pid, exit, startFailures, retryInMs: delay },
      'Worker failed at start; starting another after a pause.',
    );
    setTimeout(() => {
      if (!stopping) fork();
    }, delay);
  });
  process.once('SIGTERM', () => stopAll('SIGTERM', 0));
  process.once('SIGINT', () => stopAll('SIGINT', 0));
}
