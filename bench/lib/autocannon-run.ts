/**
 * One autocannon run, in its own process (started by `runLoad`): a 2-second warm-up, then the
 * measured phase, on the same connections. Prints one JSON line with the measured phase's latency
 * histogram (HdrHistogram, compressed base64), so the caller can merge several rounds into one
 * distribution instead of combining their percentiles.
 *
 * The warm-up is the first seconds of one run rather than autocannon's `warmup` option: that
 * option closes the warm-up's connections with their requests in flight and opens new ones, so
 * the server was still answering 50 abandoned requests when the measured phase's first 50
 * arrived, and those 50 (2-3 % of a 10-second run) measured twice the usual wait: the p99 of a
 * slow scenario was the warm-up's hand-over, not the server's tail. The measured phase is every
 * answer that arrives after the warm-up.
 *
 * The latencies are recorded here, in microseconds, from autocannon's per-response event, rather
 * than taken from autocannon's own histogram, which keeps whole milliseconds: a 6.9 ms answer
 * counts as 6 there, which skews the ratio of two small percentiles.
 */
import { createRequire } from 'node:module';
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';

export interface AutocannonRunOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Paths on the url's server, one per connection in turn (connection k asks `paths[k % n]`
   * throughout): writes to distinct records, so the connections never queue on one row.
   */
  paths?: string[];
  connections: number;
  durationSeconds: number;
}

/** What autocannon resolves to with `skipAggregateResult` (the fields used here). */
interface RawResult {
  totalCompletedRequests: number;
  duration: number;
  errors: number;
  timeouts: number;
}

export interface AutocannonRunOutput {
  /** The measured phase's latencies in µs, HdrHistogram compressed base64. */
  latencies: string;
  requests: number;
  seconds: number;
  errors: number;
  non2xx: number;
  /** Answers in warm-up and measured phase together (for CPU time per answer). */
  answered: number;
}

/** The running run: a promise of its result that also says when it starts and emits each response. */
type Instance = Promise<RawResult> & {
  on(event: 'start', listener: () => void): void;
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};
type Autocannon = (options: Record<string, unknown>) => Instance;
/** The part of autocannon's per-connection client used here. */
interface Client {
  setRequests(requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[]): void;
}
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** The first part of each run, on the same connections, not measured. */
const WARM_UP_MS = 2_000;

/** Gives each connection its own path of `options.paths`, in the order the connections open. */
function connectionPath(options: AutocannonRunOptions): (client: Client) => void {
  const paths = options.paths ?? [];
  let opened = 0;
  return (client) => {
    const path = paths[opened++ % paths.length] ?? '/';
    client.setRequests([{ method: options.method ?? 'GET', path, headers: options.headers, body: options.body }]);
  };
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '') as AutocannonRunOptions;
  const instance = autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    ...(options.paths ? { setupClient: connectionPath(options) } : {}),
    duration: options.durationSeconds + WARM_UP_MS / 1000,
    skipAggregateResult: true,
  });
  const latencies = build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3 });
  let measuredFrom = Infinity;
  let measured = 0;
  let measuredNon2xx = 0;
  instance.on('start', () => (measuredFrom = performance.now() + WARM_UP_MS));
  instance.on('response', (_client, status, _bytes, ms) => {
    if (performance.now() < measuredFrom) return;
    latencies.recordValue(Math.round(ms * 1000));
    measured++;
    if (status < 200 || status >= 300) measuredNon2xx++;
  });
  const result = await instance;
  const output: AutocannonRunOutput = {
    latencies: encodeIntoCompressedBase64(latencies),
    requests: measured,
    seconds: Math.max(0, result.duration - WARM_UP_MS / 1000),
    // Over the whole run: an error in the warm-up is still an error of the server's.
    errors: result.errors + result.timeouts,
    non2xx: measuredNon2xx,
    answered: result.totalCompletedRequests,
  };
  process.stdout.write(`${JSON.stringify(output)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
