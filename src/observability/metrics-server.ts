import cluster from 'node:cluster';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { AggregatorRegistry, Gauge, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';
import { processLog } from './process-log.js';

/** What a scrape answers: one registry's figures, or the sum over the cluster's workers. */
export interface MetricsSource {
  readonly contentType: string;
  /** The figures; `budgetMs` is how long the scrape may take (from Prometheus's timeout header). */
  metrics(budgetMs: number): Promise<string>;
}

export function registrySource(registry: Registry): MetricsSource {
  return { contentType: registry.contentType, metrics: () => registry.metrics() };
}

const METRICS_REQUEST = 'finance-intake:metrics-request';
const METRICS_ANSWER = 'finance-intake:metrics-answer';

type WorkerMetrics = MetricObjectWithValues<MetricValue<string>>[];

interface MetricsRequest {
  type: typeof METRICS_REQUEST;
  id: number;
}

interface MetricsAnswer {
  type: typeof METRICS_ANSWER;
  id: number;
  metrics: WorkerMetrics;
}

function isAnswer(message: unknown): message is MetricsAnswer {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === METRICS_ANSWER;
}

/** The series that says how many workers a scrape did not hear from in time. */
export const UNANSWERED_WORKERS = 'finance_intake_metrics_workers_unanswered';

/**
 * In the cluster primary: every scrape asks each connected worker for its figures over the
 * cluster's IPC channel and adds up those that answer within the scrape's budget (a worker that
 * is restarting or stuck never fails the scrape); `finance_intake_metrics_workers_unanswered`
 * counts the ones left out.
 */
export function clusterSource(): MetricsSource {
  let nextId = 0;
  const waiting = new Map<number, (workerId: number, metrics: WorkerMetrics) => void>();
  cluster.on('message', (worker, message: unknown) => {
    if (isAnswer(message)) waiting.get(message.id)?.(worker.id, message.metrics);
  });
  const contentType = new AggregatorRegistry().contentType;
  return {
    contentType,
    async metrics(budgetMs) {
      const id = nextId++;
      const asked = Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected());
      const answers = new Map<number, WorkerMetrics>();
      await new Promise<void>((done) => {
        const timer = setTimeout(done, budgetMs);
        waiting.set(id, (workerId, metrics) => {
          answers.set(workerId, metrics);
          if (answers.size >= asked.length) {
            clearTimeout(timer);
            done();
          }
        });
        const request: MetricsRequest = { type: METRICS_REQUEST, id };
        for (const worker of asked) worker?.send(request);
        if (asked.length === 0) {
          clearTimeout(timer);
          done();
        }
      });
      waiting.delete(id);
      const registry = AggregatorRegistry.aggregate([...answers.values()]);
      const unanswered = new Gauge({
        name: UNANSWERED_WORKERS,
        help: 'Workers that did not send their figures within the scrape timeout (restarting or stuck): the other figures leave them out.',
        registers: [registry],
      });
      unanswered.set(asked.length - answers.size);
      return registry.metrics();
    },
  };
}

/** In a cluster worker: answer the primary's requests with this registry's figures. */
export function answerPrimaryScrapes(registry: Registry): void {
  process.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null) return;
    const request = message as Partial<MetricsRequest>;
    if (request.type !== METRICS_REQUEST || typeof request.id !== 'number') return;
    const id = request.id;
    registry.getMetricsAsJSON().then(
      (metrics) => {
        const answer: MetricsAnswer = { type: METRICS_ANSWER, id, metrics };
        if (process.connected) process.send?.(answer);
      },
      (error: unknown) => processLog.error({ err: error }, 'Collecting metrics failed.'),
    );
  });
}

/** The scrape budget when Prometheus does not say its timeout. */
const DEFAULT_SCRAPE_BUDGET_MS = 3_000;

/**
 * How long a scrape may wait for the workers: Prometheus sends its scrape timeout
 * (`X-Prometheus-Scrape-Timeout-Seconds`); the answer must be sent a little before it.
 */
export function scrapeBudgetMs(headers: IncomingHttpHeaders): number {
  const raw = headers['x-prometheus-scrape-timeout-seconds'];
  const seconds = Number(Array.isArray(raw) ? raw[0] : raw);
  if (!raw || !Number.isFinite(seconds) || seconds <= 0) return DEFAULT_SCRAPE_BUDGET_MS;
  return Math.min(60_000, Math.max(100, Math.floor(seconds * 1000 * 0.8)));
}

/**
 * `GET /metrics` in Prometheus's text format on a listener of its own (METRICS_HOST and
 * METRICS_PORT), never on the API's port.
 */
export async function startMetricsServer(source: MetricsSource, host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    source.metrics(scrapeBudgetMs(request.headers)).then(
      (text) => response.writeHead(200, { 'content-type': source.contentType }).end(text),
      (error: unknown) => {
        processLog.error({ err: error }, 'Collecting metrics failed.');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('Collecting metrics failed\n');
      },
    );
  });
  server.listen(port, host);
  await once(server, 'listening');
  processLog.info(
    { metrics: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` },
    'Metrics listener started',
  );
  return server;
}
