import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import type { AutocannonRunOptions, AutocannonRunOutput } from './autocannon-run.js';
import { cpuMs, rssMiB, type RunningServer } from './processes.js';

export type LoadOptions = AutocannonRunOptions;

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** The latencies (µs) behind p50 and p99, HdrHistogram compressed base64: rounds merge by it. */
  latencies: string;
  errors: number;
  non2xx: number;
  peakRssMiB: number;
  /**
   * The server's CPU time (user + system) per request answered, warm-up included: unlike
   * throughput, barely moved by other processes competing for the machine.
   */
  cpuUsPerRequest: number;
}

const RUNNER = join(dirname(fileURLToPath(import.meta.url)), 'autocannon-run.js');

/**
 * Several runs' latency histograms (µs, HdrHistogram compressed base64) as one distribution: its
 * median and 99th percentile in ms over every request of every run, and the merged histogram.
 */
export function mergeLatencies(encoded: readonly string[]): { p50: number; p99: number; latencies: string } {
  const merged = build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  for (const e of encoded) merged.add(decodeFromCompressedBase64(e));
  const ms = (percentile: number) => Math.round(merged.getValueAtPercentile(percentile) / 100) / 10;
  return { p50: ms(50), p99: ms(99), latencies: encodeIntoCompressedBase64(merged) };
}

/**
 * Drives one scenario with autocannon in its own process (so the load generator never shares an
 * event loop with the measured server), after a warm-up, sampling the server's RSS meanwhile.
 */
export async function runLoad(server: RunningServer, options: LoadOptions): Promise<LoadResult> {
  const pid = server.process.pid ?? 0;
  const cpuBefore = cpuMs(pid);
  let peak = rssMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 250);
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [RUNNER, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`autocannon failed: ${err}`))));
    });
    const run = JSON.parse(stdout.trim()) as AutocannonRunOutput;
    server.peakRssMiB = Math.max(server.peakRssMiB, peak);
    return {
      requestsPerSecond: run.seconds > 0 ? run.requests / run.seconds : 0,
      ...mergeLatencies([run.latencies]),
      errors: run.errors,
      non2xx: run.non2xx,
      peakRssMiB: peak,
      cpuUsPerRequest: run.answered > 0 ? ((cpuMs(pid) - cpuBefore) * 1000) / run.answered : 0,
    };
  } finally {
    clearInterval(sampler);
  }
}
