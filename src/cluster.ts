import cluster from 'node:cluster';
import { processLog } from './observability/process-log.js';

export interface WorkerPlan {
  /** Runs once in the primary before any worker starts (migrations). */
  prepare(): Promise<void>;
  /** Runs in each worker (and in the single process when there is one). */
  serve(): Promise<void>;
  /** Runs in the primary once the workers are forked (the metrics of all of them). */
  serveMetrics(): Promise<void>;
}

/**
 * WEB_CONCURRENCY=N: the primary prepares once, then forks N workers sharing one port
 * (node:cluster); a worker that dies is replaced unless the primary is shutting down.
 */
export async function runWorkers(count: number, plan: WorkerPlan): Promise<void> {
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
  const fork = () => cluster.fork({ MIGRATIONS_RUN: 'false', FINANCE_INTAKE_WORKER: '1' });
  for (let i = 0; i < count; i++) fork();
  await plan.serveMetrics();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    processLog.warn({ worker: worker.process.pid, exit: signal ?? code }, 'Worker exited; starting another.');
    fork();
  });
  const stop = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    let remaining = Object.keys(cluster.workers ?? {}).length;
    if (remaining === 0) process.exit(0);
    cluster.on('exit', () => {
      remaining -= 1;
      if (remaining <= 0) process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
