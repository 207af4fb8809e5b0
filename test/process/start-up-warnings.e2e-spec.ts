import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startScriptNodeFlags } from '../../bench/lib/processes.js';
import { randomUUID } from 'node:crypto';
import { tenantDocument } from '../helpers/fixtures.js';
import { loadFixture, login, MAIN, serviceEnv, waitForOk } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { freePort } from '../helpers/free-port.mjs';

/** What Node prints for process.emitWarning (Fastify's FSTDEP/FSTWRN, Node's own deprecations). */
const WARNING = /Warning|FSTDEP\d+|FSTWRN\d+|DEP\d{4}|deprecat/i;

/**
 * The service started as `npm start` starts it (the start script's Node flags, no --no-warnings,
 * none of the test runner's NODE_OPTIONS), asked for its documents, then stopped: nothing but its
 * own lines may appear.
 */
describe('start-up without noise (issue 20)', () => {
  let database: TestDatabase;
  let child: ChildProcess;
  let stderr = '';
  let stdout = '';

  beforeAll(async () => {
    database = await acquireTestDatabase();
    // A person with contact rows, so the change feed loads nested rows inside its transaction.
    const { doc, tenant } = tenantDocument();
    doc.people = [
      {
        id: randomUUID(),
        enterprise_id: tenant.enterpriseId,
        first_name: 'Ann',
        last_name: 'Feed',
        phone_numbers: [{ id: randomUUID(), type: 'mobile', number: '0400 000 000' }],
        emails: [{ id: randomUUID(), address: 'ann.feed@example.com' }],
        addresses: [{ id: randomUUID(), type: 'home', address: '1 Feed St' }],
      },
    ];
    await loadFixture(database, doc);
    const port = await freePort();
    child = spawn(process.execPath, [...startScriptNodeFlags(resolve(import.meta.dirname, '../..')), MAIN], {
      env: { PATH: process.env.PATH ?? '', ...serviceEnv(database, port, { LOG_LEVEL: 'info' }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const base = `http://127.0.0.1:${port}`;
    await waitForOk(`${base}/health`, child, () => `${stdout}\n${stderr}`);
    // Building the documents runs @nestjs/swagger over every route: part of a start's work.
    for (const version of ['v1', 'v2']) expect((await fetch(`${base}/api/${version}/openapi.json`)).status).toBe(200);
    // The change feed reads a page's records and their nested rows on one transaction's client:
    // never two queries at once on it (pg deprecates that, and pg 9 refuses it).
    const token = await login(base, tenant.user.email, tenant.user.password);
    // The feed hands out an entry once every transaction below it has finished: ask until it is there.
    let body = '';
    for (let i = 0; i < 50 && !body.includes('ann.feed@example.com'); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 200));
      const feed = await fetch(`${base}/api/v2/changes?types=person`, {
        headers: { authorization: `Bearer ${token}`, 'x-enterprise-id': tenant.enterpriseId },
      });
      expect(feed.status).toBe(200);
      body = await feed.text();
    }
    expect(body).toContain('ann.feed@example.com');
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }, 60_000);

  afterAll(async () => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    await database.release();
  });

  it('started, and printed no warning or deprecation on stderr or stdout', () => {
    expect(stdout).toContain('Finance Intake listening on');
    expect(stderr.split('\n').filter((line) => line.trim() !== '')).toEqual([]);
    expect(stdout.split('\n').filter((line) => WARNING.test(line))).toEqual([]);
  });

  it('printed no framework chatter at info: one listening line and the banner, no route mapping', () => {
    const info = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string; context?: string })
      .filter((line) => line.level === 30);
    expect(info.filter((line) => line.context !== undefined && line.context !== 'Main')).toEqual([]);
    expect(info.filter((line) => /Mapped \{|dependencies initialized/.test(line.msg))).toEqual([]);
    expect(info.filter((line) => line.msg.startsWith('Server listening at'))).toHaveLength(1);
    // The banner (seven lines) and the listening line; the request lines are the feed's and login's.
    expect(info.filter((line) => line.msg !== 'request completed').length).toBeLessThanOrEqual(10);
  });

  it('exited cleanly on SIGTERM', () => {
    expect(child.exitCode).toBe(0);
  });
});
