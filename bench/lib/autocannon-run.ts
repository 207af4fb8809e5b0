/**
 * One autocannon run, in its own process (started by `runLoad`): a 2-second warm-up, then the
 * measured phase. Prints one JSON line with the measured phase's latency histogram (HdrHistogram,
 * compressed base64), so the caller can merge several rounds into one distribution instead of
 * combining their percentiles.
 */
import { createRequire } from 'node:module';

export interface AutocannonRunOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSeconds: number;
}

/** What autocannon resolves to with `skipAggregateResult` (the fields used here). */
interface RawResult {
  latencies: string;
  totalCompletedRequests: number;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  warmup?: { totalCompletedRequests: number };
}

export interface AutocannonRunOutput {
  /** The measured phase's latencies in ms, HdrHistogram compressed base64. */
  latencies: string;
  requests: number;
  seconds: number;
  errors: number;
  non2xx: number;
  /** Answers in warm-up and measured phase together (for CPU time per answer). */
  answered: number;
}

type Autocannon = (options: Record<string, unknown>) => Promise<RawResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '') as AutocannonRunOptions;
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.durationSeconds,
    warmup: { connections: options.connections, duration: 2 },
    skipAggregateResult: true,
  });
  const output: AutocannonRunOutput = {
    latencies: result.latencies,
    requests: result.totalCompletedRequests,
    seconds: result.duration,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    answered: result.totalCompletedRequests + (result.warmup?.totalCompletedRequests ?? 0),
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
