import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';
import { processLog } from './process-log.js';

/** What a scrape answers: one registry's figures, or the sum over the cluster's workers. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export function registrySource(registry: Registry): MetricsSource {
  return { contentType: registry.contentType, metrics: () => registry.metrics() };
}

/**
 * In the cluster primary: every scrape asks each worker for its figures over the cluster's IPC
 * channel and adds them up (prom-client's AggregatorRegistry).
 */
export function clusterSource(): MetricsSource {
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() };
}

/** In a cluster worker: answer the primary's requests with this registry's figures. */
export function answerPrimaryScrapes(registry: Registry): void {
  // Constructing one installs the worker's listener for the primary's requests.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
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
    source.metrics().then(
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
