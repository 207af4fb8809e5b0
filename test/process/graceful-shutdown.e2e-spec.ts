import { spawn } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { parseAppKey } from '../../src/config/app-key.js';
import { openDataSource } from '../../src/data-source.js';
import { selectRows } from '../../src/database/sql.js';
import { importFixture, tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const MAIN = resolve(import.meta.dirname, '../../dist/src/main.js');

/** One request on a keep-alive agent; rejects with the socket error when no answer came. */
function send(
  agent: Agent,
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = httpRequest(url, { agent, method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: text }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

type Outcome =
  | { kind: 'answered'; status: number; body: string; at: number; title?: string }
  | { kind: 'refused'; code: string; at: number; title?: string };

/**
 * SIGTERM during a burst against the real process (dist/src/main.js): requests already being
 * served finish and are answered; the rest are refused cleanly (connection refused, or 503
 * with Connection: close). No request is carried out without its answer reaching the client.
 */
describe('graceful shutdown under load', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await acquireTestDatabase();
  });
  afterAll(async () => {
    await database.release();
  });

  it('answers every accepted request and refuses the rest cleanly on SIGTERM during a burst', async () => {
    const { doc, tenant } = tenantDocument();
    const dataSource = await openDataSource(database);
    try {
      const key = parseAppKey(TEST_APP_KEY);
      if (!key) throw new Error('bad test key');
      await importFixture({ dataSource, cipher: new FieldCipher([key]) }, doc);
      // Every lead insert takes 40 ms, so requests are in flight when the signal comes.
      await dataSource.query(`
        CREATE FUNCTION slow_lead_insert() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(0.04); RETURN NEW; END $$`);
      await dataSource.query(
        `CREATE TRIGGER slow_lead_insert BEFORE INSERT ON leads FOR EACH ROW EXECUTE FUNCTION slow_lead_insert()`,
      );
    } finally {
      await dataSource.destroy();
    }

    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH ?? '',
        ...database.env,
        DATABASE_POOL_MAX: String(database.poolMax),
        APP_KEY: TEST_APP_KEY,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        RATE_LIMIT_PER_MINUTE: '1000000',
        MIGRATIONS_RUN: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const base = `http://127.0.0.1:${port}`;
    const agent = new Agent({ keepAlive: true, maxSockets: 32 });
    let passed = false;

    try {
      for (let i = 0; i < 300; i++) {
        const up = await fetch(`${base}/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (up) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const login = await fetch(`${base}/api/v2/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: tenant.user.email, password: tenant.user.password }),
      });
      expect(login.status).toBe(200);
      const { access_token: token } = (await login.json()) as { access_token: string };
      const headers = { authorization: `Bearer ${token}`, 'x-enterprise-id': tenant.enterpriseId };

      let signalledAt = Number.POSITIVE_INFINITY;
      const attempt = async (i: number): Promise<Outcome> => {
        const create = i % 3 !== 0;
        const title = create ? `Shutdown ${i}` : undefined;
        try {
          const res = await send(
            agent,
            `${base}/api/v2/leads`,
            create ? 'POST' : 'GET',
            create ? { ...headers, 'content-type': 'application/json' } : headers,
            create ? JSON.stringify({ title, person: 'Jane' }) : undefined,
          );
          return { kind: 'answered', status: res.status, body: res.body, at: Date.now(), title };
        } catch (error) {
          const code = (error as { code?: string }).code ?? String(error);
          return { kind: 'refused', code, at: Date.now(), title };
        }
      };
      // 240 requests, 32 at a time; SIGTERM once the first 40 have been answered.
      const outcomes: Outcome[] = [];
      let next = 0;
      const worker = async () => {
        while (next < 240) {
          const outcome = await attempt(next++);
          outcomes.push(outcome);
          if (outcomes.length === 40) {
            signalledAt = Date.now();
            child.kill('SIGTERM');
          }
        }
      };
      await Promise.all(Array.from({ length: 32 }, worker));
      expect(await exited).toBe(0);

      // Every answer is complete JSON; the only refusals are connection-level, before any answer.
      for (const outcome of outcomes) {
        if (outcome.kind === 'answered') {
          expect([200, 201, 503]).toContain(outcome.status);
          expect(() => JSON.parse(outcome.body) as unknown).not.toThrow();
        } else {
          expect(['ECONNREFUSED', 'ECONNRESET']).toContain(outcome.code);
        }
      }
      // Requests in flight at the signal were finished and answered.
      expect(
        outcomes.filter((o) => o.kind === 'answered' && o.status === 201 && o.at > signalledAt).length,
      ).toBeGreaterThan(0);

      // Exactly the creates answered 201 are stored: none was carried out without its answer.
      const check = await openDataSource(database);
      try {
        const rows = await selectRows<{ title: string }>(
          check,
          `SELECT title FROM leads WHERE title LIKE 'Shutdown %'`,
        );
        const stored = new Set(rows.map((r) => r.title));
        const answered201 = new Set(
          outcomes.filter((o) => o.kind === 'answered' && o.status === 201).map((o) => o.title ?? ''),
        );
        expect([...stored].sort()).toEqual([...answered201].sort());
      } finally {
        await check.destroy();
      }
      const count = (test: (o: Outcome) => boolean) => outcomes.filter(test).length;
      process.stdout.write(
        `\nShutdown burst: ${count((o) => o.kind === 'answered')} answered ` +
          `(${count((o) => o.kind === 'answered' && o.at > signalledAt)} after SIGTERM, ` +
          `${count((o) => o.kind === 'answered' && o.status === 503)} of them 503), ` +
          `${count((o) => o.kind === 'refused')} refused at the connection.\n`,
      );
      passed = true;
    } finally {
      agent.destroy();
      if (child.exitCode === null) child.kill('SIGKILL');
      if (!passed) process.stderr.write(output);
    }
  });
});
