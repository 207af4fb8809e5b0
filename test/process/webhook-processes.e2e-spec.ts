import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEMO_CREDENTIALS, DEMO_ENTERPRISE_ID } from '../../src/demo/demo-document.js';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { loadFixture, login, ServiceProcess, serviceEnv } from '../helpers/spawned-service.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_LEASE_SECONDS: '15',
};

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Api {
  post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }>;
}

function api(base: string, token: string, enterpriseId: string): Api {
  return {
    async post(path, body) {
      const res = await fetch(`${base}/api/v2${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${token}`,
          'x-enterprise-id': enterpriseId,
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
  };
}

const leadIdOf = (body: string) => (JSON.parse(body) as { data: { id: string } }).data.id;

/**
 * Service processes as operators run them, sharing one database: each entry is delivered once
 * while both run, and at least once when the one delivering is killed with `kill -9` mid-delivery.
 */
describe('outbound webhooks across processes', () => {
  let database: TestDatabase;
  const services: ServiceProcess[] = [];
  const receiver = new WebhookReceiver();
  const { doc, tenant } = tenantDocument();
  let bases: string[] = [];
  let endpointId = '';

  beforeAll(async () => {
    database = await acquireTestDatabase();
    await loadFixture(database, doc);
    const ports = [await freePort(), await freePort()];
    for (const port of ports) services.push(ServiceProcess.start(serviceEnv(database, port, WEBHOOK_ENV)));
    bases = ports.map((port) => `http://127.0.0.1:${port}`);
    await Promise.all(services.map((service, i) => service.waitFor(`${bases[i]}/health`)));
    const url = `${await receiver.start()}/hooks`;
    const token = await login(bases[0] ?? '', tenant.user.email, tenant.user.password);
    const made = await api(bases[0] ?? '', token, tenant.enterpriseId).post('/webhook-endpoints', {
      url,
      types: ['lead'],
    });
    expect(made.status).toBe(201);
    endpointId = String((made.json.data as { id: string }).id);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await receiver.stop();
    await database.release();
  });

  async function createLeads(count: number, prefix: string): Promise<string[]> {
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      const base = bases[n % bases.length] ?? '';
      const token = await login(base, tenant.user.email, tenant.user.password);
      const res = await api(base, token, tenant.enterpriseId).post('/leads', {
        title: `${prefix} ${n}`,
        person: 'Pat',
      });
      expect(res.status).toBe(201);
      ids.push(String((res.json.data as { id: string }).id));
    }
    return ids;
  }

  it('warns at start, once per process, that private URLs are allowed', () => {
    for (const service of services) {
      const warnings = service.jsonLines().filter((line) => line.setting === 'WEBHOOK_ALLOW_PRIVATE_URLS');
      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: expect.stringMatching(/^WEBHOOK_ALLOW_PRIVATE_URLS=true: .* local development only\.$/),
        }),
      ]);
    }
  });

  it('delivers each entry once while two processes run', async () => {
    const ids = await createLeads(20, 'Once');
    await receiver.waitFor(() => ids.every((id) => receiver.received.some((r) => leadIdOf(r.body) === id)), 30_000);
    await settle(1_000);
    expect(receiver.received.map((r) => leadIdOf(r.body)).sort()).toEqual([...ids].sort());
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(ids.length);
  }, 60_000);

  it('delivers what was not acknowledged again after the delivering process is killed with kill -9', async () => {
    const before = receiver.received.length;
    let slow = true;
    receiver.answer = () => (slow ? { status: 200, delayMs: 3_000 } : { status: 200 });
    const ids = await createLeads(4, 'Killed');
    await receiver.waitFor(() => receiver.received.length > before, 30_000);
    const inFlight = leadIdOf(receiver.received[before]?.body ?? '{}');
    const [lease] = await leaseOwner();
    const victim = services.find((service) => lease?.includes(`:${service.child.pid}:`));
    if (!victim) throw new Error(`no service holds the lease (${lease})`);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    slow = false;
    await receiver.waitFor(
      () => ids.every((id) => receiver.received.some((r) => r.at > killedAt && leadIdOf(r.body) === id)),
      45_000,
      'every lead of the killed round to arrive again from the other process',
    );
    const again = receiver.received.filter((r) => r.at > killedAt).map((r) => leadIdOf(r.body));
    expect(again).toContain(inFlight);
    expect(new Set(again)).toEqual(new Set(ids));
  }, 90_000);

  async function leaseOwner(): Promise<(string | undefined)[]> {
    const { openDataSource } = await import('../../src/data-source.js');
    const dataSource = await openDataSource(database);
    try {
      const rows = await dataSource.query<{ lease_owner: string | null }[]>(
        `SELECT lease_owner FROM webhook_endpoints WHERE id = $1`,
        [endpointId],
      );
      return rows.map((row) => row.lease_owner ?? undefined);
    } finally {
      await dataSource.destroy();
    }
  }
});

/** The embedded database (PGlite, one connection) delivers too. */
describe('outbound webhooks on the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'finance-intake-webhooks-'));
  const receiver = new WebhookReceiver();
  let service: ServiceProcess | undefined;

  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers a lead created through the API', async () => {
    const port = await freePort();
    service = ServiceProcess.start({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'silent', ...WEBHOOK_ENV });
    const base = `http://127.0.0.1:${port}`;
    await service.waitFor(`${base}/health`);
    const demo = DEMO_CREDENTIALS[0];
    const client = api(base, await login(base, demo.email, demo.password), DEMO_ENTERPRISE_ID);
    const url = `${await receiver.start()}/hooks`;
    expect((await client.post('/webhook-endpoints', { url })).status).toBe(201);
    const lead = await client.post('/leads', { title: 'Embedded', person: 'Em' });
    expect(lead.status).toBe(201);
    await receiver.waitFor(() => receiver.received.length >= 1, 30_000);
    expect(leadIdOf(receiver.received[0]?.body ?? '{}')).toBe((lead.json.data as { id: string }).id);
  }, 240_000);
});
