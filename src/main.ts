import { EXIT_CONFIGURATION } from './cluster.js';
import { ConfigError } from './config/config-error.js';
import { unsupportedNodeReason } from './config/node-runtime.js';
import { createFilesPrivate } from './database/private-data-dir.js';
import { logProcessWarnings, logStartFailure, logUncaughtErrors } from './observability/process-log.js';

/**
 * The service's entry point. Tracing, when configured, must start before the modules it
 * instruments (http, pg, ioredis) are loaded, so everything else is imported after it; without
 * OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module is loaded at all.
 */
logProcessWarnings();
logUncaughtErrors();
createFilesPrivate();
try {
  const unsupported = unsupportedNodeReason(process.versions.node);
  if (unsupported) throw new ConfigError(unsupported);
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()) {
    const { startTracing } = await import('./observability/tracing.js');
    startTracing();
  }
  const { startService } = await import('./server.js');
  await startService();
} catch (error: unknown) {
  logStartFailure(error);
  // A worker tells its primary that restarting it would not help (see src/cluster.ts).
  const worker = process.env.FINANCE_INTAKE_WORKER === '1';
  process.exit(worker && error instanceof ConfigError ? EXIT_CONFIGURATION : 1);
}
