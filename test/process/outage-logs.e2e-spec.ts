import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DisposablePostgres } from '../helpers/disposable-postgres.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

const OUTAGE_MS = 6000;

interface LogLine {
  level: number | string;
  msg?: string;
  err?: unknown;
  error?: { code?: string; message?: string };
  stack?: string;
}

function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/**
 * A database outage under a running service whose delivery worker looks for work every 20 ms at
 * most: the log gets one line per cause, not one per look, and no stack (stacks are debug only).
 */
describe('a quiet log while the database is down', () => {
  let postgres: DisposablePostgres;
  let service: ServiceProcess;

  beforeAll(async () => {
    postgres = await DisposablePostgres.start();
    service = await startService({
      DATABASE_URL: postgres.url,
      DATABASE_POOL_MAX: '2',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'info',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_IDLE_POLL_MAX_MS: '20',
      WEBHOOK_NO_ENDPOINTS_POLL_MS: '20',
    });
  });
  afterAll(async () => {
    await service.stop();
    await postgres.close();
  });

  it('writes each repeated warning once, without its stack, and serves again when the database is back', async () => {
    const before = service.output().length;
    await postgres.stop();
    await new Promise((done) => setTimeout(done, OUTAGE_MS));
    const during = logLines(service.output().slice(before)).filter(
      (line) => line.level !== 'info' && line.level !== 30,
    );
    await postgres.resume();

    const polls = during.filter((line) => line.msg === 'webhook delivery poll failed');
    // About 300 looks in 6 s: without the limit, a line (with its stack) each. One line per
    // cause: the connections the stop cut (ECONNRESET), then the refused ones (ECONNREFUSED).
    const causes = (lines: LogLine[]) => lines.map((line) => `${line.msg} ${line.error?.code ?? line.error?.message}`);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls.length).toBeLessThanOrEqual(2);
    expect(new Set(causes(polls)).size).toBe(polls.length);
    expect(polls[0]?.error?.message).toEqual(expect.any(String));
    expect(JSON.stringify(during)).not.toMatch(/\n\s+at /);
    expect(new Set(causes(during)).size).toBe(during.length);

    for (let i = 0; i < 100; i++) {
      if ((await fetch(`${service.base}/health/ready`)).status === 200) return;
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error('not ready again within 10 s of the database coming back');
  }, 40_000);
});
