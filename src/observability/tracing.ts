import { subscribe } from 'node:diagnostics_channel';
import { register } from 'node:module';
import { diag, DiagLogLevel, trace, type DiagLogger } from '@opentelemetry/api';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { FastifyInstance } from 'fastify';
import { beforeGracefulExit } from './exit-tasks.js';
import { processLog } from './process-log.js';

/**
 * OpenTelemetry tracing, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (main.ts imports
 * this module dynamically, before anything it instruments). Spans: one per request (the http
 * instrumentation, named after the route template), with PostgreSQL (pg) and Redis (ioredis)
 * calls under it, exported over OTLP with the standard OTEL_* variables (protocol
 * `http/protobuf` unless OTEL_EXPORTER_OTLP_PROTOCOL says `http/json` or `grpc`).
 */
export function startTracing(): void {
  // ES modules are patched through a loader hook (import-in-the-middle); CommonJS ones (pg,
  // ioredis and TypeORM are) through require's. Both must be in place before they load.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'finance-intake',
    instrumentations: [
      new HttpInstrumentation({
        // Probes are polled every few seconds: not worth a trace each.
        ignoreIncomingRequestHook: (request) => /^\/health(\/(live|ready))?\/?(\?|$)/.test(request.url ?? ''),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
    // Traces only: the service's metrics are Prometheus's (METRICS_PORT), its logs JSON lines.
    logRecordProcessors: [],
  });
  diag.setLogger(exportFailureWarnings(), DiagLogLevel.ERROR);
  sdk.start();
  nameRequestSpansAfterRoutes();
  processLog.info({ endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT }, 'Tracing to OTLP endpoint');
  // The batch of spans not sent yet goes out before a graceful stop ends the process.
  // Bounded: an endpoint that does not answer must not hold the stop for the exporter's timeout.
  beforeGracefulExit(() => shutdownWithin(sdk, SHUTDOWN_FLUSH_MS));
}

/** How long a graceful stop waits for the last spans to be sent. */
const SHUTDOWN_FLUSH_MS = 2_000;

/** At most one warning this often about spans that could not be sent. */
const EXPORT_WARNING_INTERVAL_MS = 5 * 60_000;

/**
 * OpenTelemetry reports a failed export (endpoint down, refused, timed out) through its
 * diagnostic logger, which logs nothing by default: spans were dropped silently. One warning
 * line, then at most one every five minutes while it goes on, with how many failures it covers.
 */
function exportFailureWarnings(): DiagLogger {
  let lastWarning = -Infinity;
  let unreported = 0;
  const failed = (message: string, ...args: unknown[]) => {
    unreported += 1;
    const now = Date.now();
    if (now - lastWarning < EXPORT_WARNING_INTERVAL_MS) return;
    lastWarning = now;
    const detail = args.find((arg): arg is Error => arg instanceof Error);
    processLog.warn(
      { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, failures: unreported, error: detail?.message ?? message },
      'Spans could not be sent to the OTLP endpoint and were dropped (next warning in 5 minutes at most).',
    );
    unreported = 0;
  };
  const ignore = () => undefined;
  return { error: failed, warn: ignore, info: ignore, debug: ignore, verbose: ignore };
}

async function shutdownWithin(sdk: NodeSDK, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), ms);
  });
  const outcome = await Promise.race([sdk.shutdown().then(() => 'sent' as const), late]).catch(() => 'failed' as const);
  clearTimeout(timer);
  if (outcome !== 'sent') {
    processLog.warn(
      { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT },
      `The last spans were not sent within ${ms} ms of the stop; they are dropped.`,
    );
  }
}

/**
 * The http instrumentation names a server span after the method only; every Fastify instance
 * created from now on names it `METHOD /route/:template` and sets `http.route` (never the raw
 * URL, which holds ids). Fastify announces each new instance on this diagnostics channel.
 */
function nameRequestSpansAfterRoutes(): void {
  subscribe('fastify.initialization', (message) => {
    const { fastify } = message as { fastify: FastifyInstance };
    fastify.addHook('onRequest', (request, _reply, done) => {
      const route = request.routeOptions.url;
      const span = trace.getActiveSpan();
      if (span && route) {
        span.updateName(`${request.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      done();
    });
  });
}
