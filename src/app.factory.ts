import { VersioningType } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import { AppModule } from './app.module.js';
import { leaveBulkheadWhenDone } from './common/tenancy/enterprise-bulkhead.js';
import { acceptEmptyBodies } from './common/http/optional-body.js';
import { ApiExceptionFilter } from './common/http/api-exception.filter.js';
import { ApiFastifyAdapter } from './common/http/api-fastify-adapter.js';
import { afterSuccessfulWrites } from './common/http/after-writes.js';
import { CountFolder } from './database/count-folder.js';
import { countRequestsInFlight } from './common/http/requests-in-flight.js';
import { answerClientError } from './common/http/client-error-answer.js';
import { compressWhenAsked } from './common/http/compression.js';
import { keepListPages } from './common/http/conditional/page-cache.js';
import { recordWritePositions } from './common/http/read-your-writes.js';
import { ReadRouter } from './database/replicas/read-router.js';
import { ReplicaSet } from './database/replicas/replica-set.js';
import { closeConnectionsWhenDraining } from './common/http/connection-drain.js';
import { limitLargeBodies } from './common/http/large-body-limit.js';
import { echoRequestId, REQUEST_ID_HEADER } from './common/http/request-id-header.js';
import { ROUTER_OPTIONS, RouteRegistry } from './common/http/route-registry.js';
import { loggerOptions, requestId } from './common/logging/logger-options.js';
import { PinoNestLogger } from './common/logging/pino-nest-logger.js';
import { logRequests } from './common/logging/request-logging.js';
import { corsOptions } from './common/security/cors-options.js';
import { addSecurityHeaders, API_SECURITY_HEADERS, noStoreForApi } from './common/security/security-headers.js';
import type { AppConfig } from './config/app-config.js';
import type { DatabaseTarget } from './database/data-source-options.js';
import { buildOpenApiDocuments } from './openapi/openapi-documents.js';
import { OpenApiDocuments } from './openapi/openapi-documents.service.js';
import { keepRawWebhookBodies } from './webhooks/raw-webhook-body.js';
import { ServiceMetrics } from './observability/metrics.js';
import { measureRequests } from './observability/request-metrics.js';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { getDataSourceToken } from '@nestjs/typeorm';
import { caseV1Answers } from './common/casing/v1-casing.hook.js';
import { serialiseJsonBody } from './database/json-text.js';
import { WebhookDeliveryWorker } from './webhook-endpoints/webhook-delivery.worker.js';

/** Every route is under /api but the probes and the interactive documentation. */
const GLOBAL_PREFIX = 'api';
const UNPREFIXED_PATHS = ['health', 'health/live', 'health/ready', 'docs', 'docs/:asset'] as const;

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The whole request (headers and body) must arrive within this; slow senders are cut off. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The request headers must arrive within this. */
export const HEADERS_TIMEOUT_MS = 15_000;
/** An idle keep-alive connection is closed after this (above common load balancers' 60 s). */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

const registries = new WeakMap<NestFastifyApplication, RouteRegistry>();
const metricsByApp = new WeakMap<NestFastifyApplication, ServiceMetrics>();

/** Every route the application registered (method and URL pattern), e.g. for route-driven tests. */
export function routeRegistryOf(app: NestFastifyApplication): RouteRegistry {
  const registry = registries.get(app);
  if (!registry) throw new Error('Not an application built by createApp()');
  return registry;
}

/** The application's Prometheus metrics; undefined when METRICS_PORT is unset (none are kept). */
export function metricsOf(app: NestFastifyApplication): ServiceMetrics | undefined {
  return metricsByApp.get(app);
}

/** Builds the application (not listening yet); shared by main.ts and the tests. */
export async function createApp(config: AppConfig, database: DatabaseTarget): Promise<NestFastifyApplication> {
  const routes = new RouteRegistry();
  const errors = new ApiExceptionFilter(routes);
  const adapter = new ApiFastifyAdapter(
    {
      // A path that cannot be percent-decoded: Fastify answers it before routing and before any
      // hook, through here, so the headers the hooks would set are set here.
      frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
        void reply
          .headers(API_SECURITY_HEADERS)
          .header('cache-control', 'no-store')
          .header(REQUEST_ID_HEADER, request.id);
        errors.reply(error, request, reply);
      },
      // A request Node's HTTP parser refuses (headers over 16 KiB, a CR, LF or NUL in a header):
      // answered on the socket before any hook, with the headers and body shape of the others.
      clientErrorHandler: answerClientError,
      bodyLimit: BODY_LIMIT_BYTES,
      trustProxy: config.trustProxy,
      requestTimeout: REQUEST_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      genReqId: requestId,
      // Fastify's own pino logger: one JSON stream, and no AsyncLocalStorage around every request
      // (nestjs-pino's, which cost a large share of a lead retrieve, issue 9).
      logger: loggerOptions(config.logLevel),
      // Fastify's own request lines are off (logRequests writes one of its own); set through the
      // log controller, as the top-level option is deprecated (FSTDEP023).
      logController: new LogController({ disableRequestLogging: true }),
      routerOptions: ROUTER_OPTIONS,
    },
    (error, request, reply) => errors.reply(error, request, reply),
  );
  const fastify = adapter.getInstance();
  fastify.server.headersTimeout = HEADERS_TIMEOUT_MS;
  // Records (or their nested rows) may be JSON text written by PostgreSQL; answers splice it in.
  // A large answer comes back as a Buffer: Fastify's type says string, but what the serializer
  // returns goes to the onSend hooks and the reply writer, which both take a Buffer as well.
  fastify.setReplySerializer((payload) => serialiseJsonBody(payload) as string);
  fastify.addHook('onRoute', (route) => routes.add(route.method, route.url));
  // JSON only: a text body where JSON is expected is a 415, not a string to validate.
  fastify.removeContentTypeParser(['text/plain']);
  keepRawWebhookBodies(fastify);
  acceptEmptyBodies(fastify);
  echoRequestId(fastify);
  logRequests(fastify);
  addSecurityHeaders(fastify);
  noStoreForApi(fastify);
  limitLargeBodies(fastify);
  // Counted only for a delivery worker that gives way to them (a hook on every request otherwise).
  const requestsInFlight =
    config.webhooks.delivery && config.webhooks.yieldAtRequests > 0 ? countRequestsInFlight(fastify) : undefined;
  closeConnectionsWhenDraining(fastify);
  keepListPages(fastify, config.pageCacheMegabytes * 1024 * 1024);
  leaveBulkheadWhenDone(fastify);
  await compressWhenAsked(fastify);
  const metrics = config.metricsPort === undefined ? undefined : new ServiceMetrics();
  if (metrics) measureRequests(fastify, metrics);

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, database), adapter, {
    rawBody: true,
    // From the first line on (a database unreachable at start included), Nest writes JSON lines.
    logger: new PinoNestLogger(fastify.log, { prefix: GLOBAL_PREFIX, paths: UNPREFIXED_PATHS }),
    abortOnError: false,
  });
  registries.set(app, routes);
  caseV1Answers(fastify, app);
  const readRouter = app.get(ReadRouter);
  recordWritePositions(fastify, readRouter);
  if (requestsInFlight) app.get(WebhookDeliveryWorker).yieldTo(requestsInFlight);
  // An idle delivery worker and count folder wait longer and longer between looks; a write
  // answered here may have given them work, so they look soon.
  const worker = config.webhooks.delivery ? app.get(WebhookDeliveryWorker) : undefined;
  const countFolder = app.get(CountFolder);
  afterSuccessfulWrites(fastify, () => {
    worker?.wake();
    countFolder.wake();
  });
  if (metrics) {
    const replicas = app.get(ReplicaSet);
    if (replicas.configured)
      metrics.watchReplicas(() => ({ replicas: replicas.status(), primaryReads: readRouter.primaryReads }));
    metricsByApp.set(app, metrics);
    const dataSource = app.get<DataSource>(getDataSourceToken());
    metrics.watchPool(() => (dataSource.driver as unknown as { master?: Pool }).master);
    app.get(WebhookDeliveryWorker).useMetrics(metrics);
  }
  // CORS stays off (no Access-Control-* headers) unless CORS_ORIGINS names who may call.
  if (config.corsOrigins.length > 0) app.enableCors(corsOptions(config.corsOrigins));
  app.setGlobalPrefix(GLOBAL_PREFIX, { exclude: [...UNPREFIXED_PATHS] });
  app.enableVersioning({ type: VersioningType.URI, prefix: 'v' });
  app.useGlobalFilters(errors);
  app.get(OpenApiDocuments).useBuilder(() => buildOpenApiDocuments(app, { appUrl: config.appUrl }));
  await app.init();
  // After init: Nest installs its parsers there (the error handler is the adapter's business).
  fastify.removeContentTypeParser(['application/x-www-form-urlencoded']);
  await fastify.ready();
  return app;
}
