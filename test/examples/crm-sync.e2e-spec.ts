import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_ENTERPRISE_ID } from '../../src/demo/demo-document.js';
import { seedDemo } from '../../src/demo/seed-demo.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
const root = process.cwd();
const example = join(root, 'examples', 'crm-sync');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

interface SyncReport {
  enterprise_id: string;
  people: number;
  people_unchanged: boolean;
  lead: { id: string; title: string };
  replayed: boolean;
  changed_leads: string[];
  feed_title: string | null;
  cursor: string;
}

/** A child's output on failure, so a type error in the example reads as one. */
async function succeed(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await run(file, args, { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout}\n${stderr}`, { cause: error });
  }
}

// The example runs in child processes against this process's service on a real socket, so every
// call here is asynchronous: a synchronous spawn would stop the service it waits for.
describe('examples/crm-sync: a client typed from the served v2 document (issue 20)', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp();
    await seedDemo(t.dataSource, t.cipher);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = (await t.app.getUrl()).replace('[::1]', '127.0.0.1');
    rmSync(join(example, 'generated'), { recursive: true, force: true });
    rmSync(join(example, 'dist'), { recursive: true, force: true });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('generates the types from the running service, type-checks the example and its type tests', async () => {
    await succeed(bin('openapi-typescript'), [
      `${base}/api/v2/openapi.json`,
      '--output',
      join(example, 'generated', 'v2.d.ts'),
    ]);
    // type-tests/lead-input.ts: each @ts-expect-error must meet its error, or tsc fails.
    await succeed(bin('tsc'), ['-p', join(example, 'tsconfig.json')]);
  }, 180_000);

  it('runs end to end: logs in, pages people, creates and updates a lead, follows the change feed', async () => {
    const stdout = await succeed(process.execPath, [join(example, 'dist', 'sync.js')], {
      ...process.env,
      API_URL: base,
    });
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as SyncReport;
    expect(report.enterprise_id).toBe(DEMO_ENTERPRISE_ID);

    const [people] = await t.dataSource.query<{ count: number }[]>(
      'SELECT count(*)::int AS count FROM people WHERE enterprise_id = $1',
      [DEMO_ENTERPRISE_ID],
    );
    const count = people?.count ?? 0;
    expect(count).toBeGreaterThan(100); // more than one page
    expect(report.people).toBe(count);
    // The second read with the first one's ETag was a 304, handled before `data` was looked at.
    expect(report.people_unchanged).toBe(true);

    expect(report.replayed).toBe(true);
    expect(report.lead.title).toBe('Car loan enquiry (called back)');
    const leads = await t.dataSource.query<{ title: string }[]>('SELECT title FROM leads WHERE id = $1', [
      report.lead.id,
    ]);
    expect(leads).toEqual([{ title: 'Car loan enquiry (called back)' }]);
    // The retry wrote nothing: one lead of that title.
    const created = await t.dataSource.query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM leads WHERE enterprise_id = $1 AND title LIKE 'Car loan enquiry%'`,
      [DEMO_ENTERPRISE_ID],
    );
    expect(created).toEqual([{ count: 1 }]);
    expect(report.changed_leads).toEqual([report.lead.id]);
    expect(report.feed_title).toBe('Car loan enquiry (called back)');
  }, 120_000);
});
