import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpuMs, rssMiB, type RunningServer } from './processes.js';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  peakRssMiB: number;
  /**
   * The server's CPU time (user + system) per request answered, warm-up included: unlike
   * throughput, barely moved by other processes competing for the machine.
   */
  cpuUsPerRequest: number;
}

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/**
 * Drives one scenario with autocannon in its own process (so the load generator never shares an
 * event loop with the measured server), after a warm-up, sampling the server's RSS meanwhile.
 */
export async function runLoad(server: RunningServer, options: LoadOptions): Promise<LoadResult> {
  const args = [AUTOCANNON, '-j', '-c', String(options.connections), '-d', String(options.durationSeconds)];
  args.push('--warmup', '[', '-c', String(options.connections), '-d', '2', ']');
  if (options.method) args.push('-m', options.method);
  for (const [key, value] of Object.entries(options.headers ?? {})) args.push('-H', `${key}=${value}`);
  if (options.body !== undefined) args.push('-b', options.body);
  args.push(options.url);

  const pid = server.process.pid ?? 0;
  const cpuBefore = cpuMs(pid);
  let peak = rssMiB(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 250);
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`autocannon failed: ${err}`))));
    });
    // With a warm-up autocannon prints one JSON line per phase; the measured one is last.
    const phases = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AutocannonJson);
    const result = phases.at(-1);
    if (!result) throw new Error('autocannon printed nothing');
    const answered = phases.reduce((sum, phase) => sum + phase.requests.total, 0);
    server.peakRssMiB = Math.max(server.peakRssMiB, peak);
    return {
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.timeouts,
      non2xx: result.non2xx,
      peakRssMiB: peak,
      cpuUsPerRequest: answered > 0 ? ((cpuMs(pid) - cpuBefore) * 1000) / answered : 0,
    };
  } finally {
    clearInterval(sampler);
  }
}
