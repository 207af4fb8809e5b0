import { ServiceMetrics } from '../src/observability/metrics.js';

/**
 * What metrics cost a request, measured without the noise of a loaded machine's HTTP runs: one
 * `observeRequest` (histogram + counters, as the onResponse hook calls it) and one scrape.
 */
const metrics = new ServiceMetrics();
const routes = ['/api/v2/leads/:id', '/api/v2/people', '/api/v1/people/:id', undefined];
const observe = (i: number) =>
  metrics.observeRequest(i % 7 ? 'GET' : 'POST', routes[i % 4], i % 5 ? 200 : 404, 0.01 + (i % 100) / 1000);

for (let i = 0; i < 200_000; i++) observe(i);
const calls = 1_000_000;
const started = process.hrtime.bigint();
for (let i = 0; i < calls; i++) observe(i);
const perCallNs = Number(process.hrtime.bigint() - started) / calls;

const scrapeStarted = process.hrtime.bigint();
const text = await metrics.registry.metrics();
const scrapeMs = Number(process.hrtime.bigint() - scrapeStarted) / 1e6;

process.stdout.write(`observeRequest: ${perCallNs.toFixed(0)} ns per request (${calls} calls)\n`);
process.stdout.write(`one scrape: ${scrapeMs.toFixed(1)} ms, ${text.length} bytes\n`);
process.exit(0);
