import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { loadFixture, login, ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/** Everything the service prints, from the first line to the last, is a JSON line. */
describe('process output as JSON lines', () => {
  let database: TestDatabase;
  const { doc, tenant } = tenantDocument();

  beforeAll(async () => {
    database = await acquireTestDatabase();
    await loadFixture(database, doc);
  });
  afterAll(async () => {
    await database.release();
  });

  it('logs who made each request (user and enterprise ids, never the token), start to shutdown in JSON', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = ServiceProcess.start(serviceEnv(database, port, { LOG_LEVEL: 'info' }));
    const token = await service
      .waitFor(`${base}/health/live`)
      .then(() => login(base, tenant.user.email, tenant.user.password));
    const users = await fetch(`${base}/api/v2/users`, {
      headers: { authorization: `Bearer ${token}`, 'x-enterprise-id': tenant.enterpriseId, 'x-request-id': 'who-1' },
    });
    expect(users.status).toBe(200);
    const foreign = await fetch(`${base}/api/v2/users`, {
      headers: {
        authorization: `Bearer ${token}`,
        'x-enterprise-id': tenant.otherEnterpriseId,
        'x-request-id': 'who-2',
      },
    });
    expect(foreign.status).toBe(403);
    await fetch(`${base}/api/v2/enterprises`, { headers: { 'x-request-id': 'who-3' } });
    expect(await service.stop()).toBe(0);

    const lines = service.jsonLines();
    const requestLine = (id: string) =>
      lines.find((line) => (line.req as { id?: string } | undefined)?.id === id && line.msg === 'request completed');
    expect(requestLine('who-1')).toMatchObject({ userId: tenant.user.id, enterpriseId: tenant.enterpriseId });
    // A member of neither: the user is known, the enterprise was not admitted.
    expect(requestLine('who-2')).toMatchObject({ userId: tenant.user.id });
    expect(requestLine('who-2')).not.toHaveProperty('enterpriseId');
    expect(requestLine('who-3')).not.toHaveProperty('userId');
    expect(service.output).not.toContain(token);
    expect(service.output).not.toContain(token.split('|')[1] ?? token);

    // The banner, Fastify's listening line and the shutdown, all parsed above (Nest's own
    // start-up lines are at debug since issue 34, so not at this level).
    const messages = lines.map((line) => String(line.msg));
    expect(messages.some((m) => m.startsWith('Finance Intake listening on http://127.0.0.1:'))).toBe(true);
    expect(messages.some((m) => m.startsWith('Server listening at http://127.0.0.1:'))).toBe(true);
    // The banner names the Node it runs on: the project's Node 24, as npm start runs it.
    expect(process.version).toMatch(/^v24\./);
    expect(messages).toContain(`Runtime: Node.js ${process.version}`);
    expect(messages).not.toContain('Starting Nest application...');
    // Fastify logs a request's completion once its answer is written, which on a loaded machine
    // can be after the client, holding the answer, has sent SIGTERM: the shutdown notice is the
    // last thing the service says other than that.
    expect(messages.filter((m) => m !== 'request completed').at(-1)).toBe(
      'SIGTERM received: finishing in-flight requests, then stopping.',
    );
  });

  it('prints a start-up failure (database unreachable) as JSON lines and exits 1', async () => {
    const service = ServiceProcess.start({
      // Nothing listens on port 1.
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      APP_KEY: TEST_APP_KEY,
      PORT: String(await freePort()),
    });
    expect(await service.exited).toBe(1);
    const lines = service.jsonLines();
    expect(lines.length).toBeGreaterThanOrEqual(1);
    // The key check before the application reaches the database first; any lines Nest printed
    // before the failure interleave with it in any order.
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 60, msg: 'Finance Intake failed to start: connect ECONNREFUSED 127.0.0.1:1' }),
    );
    expect(service.output).not.toContain('\u001b[');
  });

  it('prints a configuration error as one JSON line naming the variable and exits 1', async () => {
    const service = ServiceProcess.start({ PORT: 'eighty' });
    expect(await service.exited).toBe(1);
    expect(service.jsonLines()).toEqual([
      expect.objectContaining({ level: 60, msg: 'Invalid configuration: PORT must be a port number.' }),
    ]);
  });
});
