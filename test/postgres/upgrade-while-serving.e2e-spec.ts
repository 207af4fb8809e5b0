import { spawn, type ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { benchPerson, ENTERPRISE } from '../../bench/lib/import-rows.js';
import { buildRelease, nodeOf } from '../../bench/lib/release-builds.js';
import { apiHeaders } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { runCliProcess } from '../helpers/run-cli.js';
import { login, waitForOk } from '../helpers/spawned-service.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * The release an operator upgrades from: the last one before the five migrations that rewrite
 * the biggest tables (stored record JSON, change capture once per transaction, the financials
 * index, webhook endpoints, tenants that never wait), so `migrate` does real work under load.
 */
const PREVIOUS_RELEASE = '2862155';
const PEOPLE = 20_000;
const WORKERS = 6;
const USER = { id: '0e000000-0000-4000-8000-0000000000aa', email: 'upgrade@example.com', password: 'upgrade-pw' };

interface Answer {
  status: number;
  body: string;
}

/** The previous release's build, as an operator runs it: its own CLI and service, its own Node. */
class PreviousRelease {
  private service: ChildProcess | undefined;
  output = '';

  constructor(
    readonly dir: string,
    private readonly env: Record<string, string>,
  ) {}

  private get node(): string {
    return nodeOf(this.dir);
  }

  cli(args: string[]): string {
    return execFileSync(this.node, [join(this.dir, 'dist/src/cli/main.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', TZ: 'UTC', ...this.env },
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
  }

  async start(port: number): Promise<string> {
    const child = spawn(this.node, [join(this.dir, 'dist/src/main.js')], {
      env: {
        PATH: process.env.PATH ?? '',
        ...this.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        MIGRATIONS_RUN: 'false',
        RATE_LIMIT_PER_MINUTE: '1000000',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.service = child;
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`, child, () => this.output);
    return base;
  }

  async stop(): Promise<void> {
    const child = this.service;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
}

/**
 * An upgrade in the guide's order: the new release's `migrate` runs while the previous release
 * still serves reads and lead writes, on a database of 20,000 people. Its statements wait a
 * bounded time for locks and try again, so no request of the serving release fails.
 */
describe(`upgrading from ${PREVIOUS_RELEASE} while it serves`, () => {
  let database: TestDatabase;
  let previous: PreviousRelease;
  let work: string;
  let base = '';
  let token = '';

  beforeAll(async () => {
    const root = resolve(import.meta.dirname, '../..');
    const sha = execFileSync('git', ['rev-parse', `${PREVIOUS_RELEASE}^{commit}`], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
    const dir = buildRelease(sha);
    database = await acquireTestDatabase({ migrated: false });
    previous = new PreviousRelease(dir, { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY });
    work = mkdtempSync(join(tmpdir(), 'upgrade-'));
    const file = join(work, 'people.json');
    const people = Array.from({ length: PEOPLE }, (_, i) => JSON.stringify(benchPerson(i)));
    writeFileSync(
      file,
      `{"enterprises":[{"id":"${ENTERPRISE}","name":"Upgrade Finance","is_active":true}],` +
        `"users":[${JSON.stringify({ ...USER, name: 'Una Upgrade', is_active: true, enterprise_ids: [ENTERPRISE] })}],` +
        `"people":[${people.join(',')}]}`,
    );
    previous.cli(['migrate']);
    previous.cli(['import', file]);
    base = await previous.start(await freePort());
    token = await login(base, USER.email, USER.password);
  }, 600_000);

  afterAll(async () => {
    await previous?.stop();
    await database?.release();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...apiHeaders('v2', token, ENTERPRISE), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.text() };
  }

  /** One worker's mix: a people page, a person, a lead written and read back, a leads page. */
  async function worker(index: number, running: () => boolean, answers: Answer[]): Promise<void> {
    for (let i = 0; running(); i++) {
      const person = benchPerson((index * 997 + i * 31) % PEOPLE).id;
      answers.push(await request('GET', `/api/v2/people?page=${1 + ((index + i) % 50)}`));
      answers.push(await request('GET', `/api/v2/people/${person}`));
      const created = await request('POST', '/api/v2/leads', { title: `upgrade ${index}-${i}`, person_name: 'Pat' });
      answers.push(created);
      if (created.status === 201) {
        const id = (JSON.parse(created.body) as { data: { id: string } }).data.id;
        answers.push(await request('GET', `/api/v2/leads/${id}`));
      }
      answers.push(await request('GET', '/api/v2/leads'));
    }
  }

  it('migrates to this release with no 5xx from the serving one, and the previous release still serves after', async () => {
    const answers: Answer[] = [];
    let running = true;
    const load = Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i, () => running, answers)));
    await new Promise((done) => setTimeout(done, 1_000));
    const before = answers.length;
    const started = Date.now();
    const migrate = await runCliProcess(['migrate'], { DATABASE_URL: database.url, APP_KEY: TEST_APP_KEY });
    const seconds = (Date.now() - started) / 1000;
    const during = answers.length - before;
    await new Promise((done) => setTimeout(done, 1_000));
    running = false;
    await load;

    // What migrate printed is shown only when it failed (its retries are expected otherwise).
    expect({ code: migrate.code, failure: migrate.code === 0 ? '' : migrate.stderr }).toEqual({ code: 0, failure: '' });
    expect(migrate.stdout).toMatch(/StoredRecordJson1764900000000/);
    const failed = answers.filter((answer) => answer.status >= 500);
    expect(failed.map((answer) => `${answer.status} ${answer.body.slice(0, 200)}`)).toEqual([]);
    expect(answers.every((answer) => [200, 201].includes(answer.status))).toBe(true);
    expect(during).toBeGreaterThan(0);
    process.stderr.write(
      `upgrade from ${PREVIOUS_RELEASE}: migrate took ${seconds.toFixed(1)} s, ${during} requests answered meanwhile, ` +
        `${answers.length} in all, none 5xx; ${migrate.stderr.split('\n').filter((line) => line.includes('again')).length} retries\n`,
    );
    expect((await request('GET', '/api/v2/people?page=1')).status).toBe(200);
  }, 600_000);
});
