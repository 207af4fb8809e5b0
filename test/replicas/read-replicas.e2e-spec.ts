import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { createApp, metricsOf } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/app-config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { ReplicaSet } from '../../src/database/replicas/replica-set.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { queryOn, ReplicaCluster } from '../helpers/replica-cluster.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

/** A statement only a lead list page runs (the page's ids, read from the enterprise's index). */
const LEAD_PAGE = '%JOIN (SELECT id FROM leads WHERE enterprise_id%';
/** A statement only a lead retrieve runs. */
const LEAD_ROW = '%FROM leads l WHERE l.id = $1 AND l.enterprise_id = $2%';
const MAX_LAG_MS = 1000;

interface LeadPage {
  data: { id: string; title: string | null }[];
}

/**
 * Reads through a real streaming replica (PostgreSQL's own replication, a standby made by
 * pg_basebackup): which server answered is read from the servers' own pg_stat_statements,
 * never from the service.
 */
describe('read replicas', () => {
  let cluster: ReplicaCluster;
  let app: NestFastifyApplication;
  let tenant: Tenant;
  /** A second user of the same enterprise, who never writes. */
  const reader = { id: randomUUID(), email: `reader-${randomUUID().slice(0, 8)}@example.com`, password: 'reader-pw' };
  let writerToken = '';
  let readerToken = '';

  beforeAll(async () => {
    cluster = await ReplicaCluster.start();
    const config = loadConfig({
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URLS: cluster.replicaUrl,
      DATABASE_REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
      DATABASE_POOL_MAX: '5',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      METRICS_PORT: String(await freePort()),
      // Every list reads its rows, so each one shows in a server's statistics.
      PAGE_CACHE_MB: '0',
    });
    app = checkResponsesAgainstOpenApi(await createApp(config, { url: cluster.primaryUrl, poolMax: 5 }));
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    fixture.doc.users?.push({ ...reader, name: 'Rita Reader', is_active: true, enterprise_ids: [tenant.enterpriseId] });
    await importFixture(
      { dataSource: app.get<DataSource>(getDataSourceToken()), cipher: app.get(FieldCipher) },
      fixture.doc,
    );
    writerToken = await loginToken(app, tenant.user.email, tenant.user.password);
    readerToken = await loginToken(app, reader.email, reader.password);
    await cluster.waitForReplay();
    await replicaServing(true);
  });

  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  async function replicaServing(serving: boolean): Promise<void> {
    const replicas = app.get(ReplicaSet);
    for (let i = 0; i < 200; i++) {
      if (replicas.serving().length > 0 === serving) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`the replica did not become ${serving ? 'serving' : 'skipped'}`);
  }

  const listLeads = (token: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'GET',
      url: '/api/v2/leads',
      headers: { ...apiHeaders('v2', token, tenant.enterpriseId), ...headers },
    });

  const retrieveLead = (token: string, id: string) =>
    app.inject({ method: 'GET', url: `/api/v2/leads/${id}`, headers: apiHeaders('v2', token, tenant.enterpriseId) });

  const createLead = async (token: string, title: string): Promise<string> => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
      payload: { title, person_name: 'Pat' },
    });
    expect(res.statusCode).toBe(201);
    return res.json<{ data: { id: string } }>().data.id;
  };

  /** Calls of a statement on each server while `work` runs. */
  async function servedBy(pattern: string, work: () => Promise<void>): Promise<{ replica: number; primary: number }> {
    const before = {
      replica: await cluster.replicaStatementCalls(pattern),
      primary: await cluster.primaryStatementCalls(pattern),
    };
    await work();
    return {
      replica: (await cluster.replicaStatementCalls(pattern)) - before.replica,
      primary: (await cluster.primaryStatementCalls(pattern)) - before.primary,
    };
  }

  it('serves lists and retrieves from the replica, as its own statistics show', async () => {
    const id = await createLead(writerToken, 'seen from the replica');
    await cluster.waitForReplay();
    const calls = await servedBy(LEAD_PAGE, async () => {
      for (let i = 0; i < 5; i++) expect((await listLeads(readerToken)).statusCode).toBe(200);
    });
    expect(calls).toEqual({ replica: 5, primary: 0 });
    const rows = await servedBy(LEAD_ROW, async () => {
      for (let i = 0; i < 3; i++) expect((await retrieveLead(readerToken, id)).statusCode).toBe(200);
    });
    expect(rows).toEqual({ replica: 3, primary: 0 });
  });

  it("with replay paused, a user's own write is in that user's next list and retrieve at once; another user reads the replica's state", async () => {
    await cluster.waitForReplay();
    const before = await listLeads(writerToken);
    const tag = before.headers.etag as string;
    await cluster.pauseReplay();
    try {
      const id = await createLead(writerToken, 'written while replay is paused');

      const own = await servedBy(LEAD_PAGE, async () => {
        const list = await listLeads(writerToken, { 'if-none-match': tag });
        // Not a 304 from the stale replica: the new lead is in the page.
        expect(list.statusCode).toBe(200);
        expect(list.json<LeadPage>().data.map((lead) => lead.id)).toContain(id);
      });
      expect(own).toEqual({ replica: 0, primary: 1 });
      const retrieved = await retrieveLead(writerToken, id);
      expect(retrieved.statusCode).toBe(200);
      expect(retrieved.json<{ data: { title: string } }>().data.title).toBe('written while replay is paused');

      const other = await servedBy(LEAD_PAGE, async () => {
        const list = await listLeads(readerToken);
        expect(list.statusCode).toBe(200);
        expect(list.json<LeadPage>().data.map((lead) => lead.id)).not.toContain(id);
      });
      expect(other).toEqual({ replica: 1, primary: 0 });
      // The replica does not have the lead: 404 from it, never a 5xx.
      expect((await retrieveLead(readerToken, id)).statusCode).toBe(404);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.waitForReplay();
    // Caught up: the writer's reads go back to the replica.
    const back = await servedBy(LEAD_PAGE, async () => {
      expect((await listLeads(writerToken)).statusCode).toBe(200);
    });
    expect(back).toEqual({ replica: 1, primary: 0 });
  });

  it('logout takes effect at once with replay paused: the token check reads the primary', async () => {
    const leaving = await loginToken(app, reader.email, reader.password);
    expect((await listLeads(leaving)).statusCode).toBe(200);
    await cluster.pauseReplay();
    try {
      const out = await app.inject({ method: 'POST', url: '/api/v2/logout', headers: apiHeaders('v2', leaving) });
      expect(out.statusCode).toBe(204);
      expect((await listLeads(leaving)).statusCode).toBe(401);
      // Deactivation, from outside the API, is as immediate.
      const deactivated = await loginToken(app, reader.email, reader.password);
      await queryOn(cluster.primaryUrl, 'UPDATE users SET is_active = 0 WHERE id = $1', [reader.id]);
      try {
        expect((await listLeads(deactivated)).statusCode).toBe(401);
      } finally {
        await queryOn(cluster.primaryUrl, 'UPDATE users SET is_active = 1 WHERE id = $1', [reader.id]);
      }
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('a replica behind by more than DATABASE_REPLICA_MAX_LAG_MS is skipped until it catches up', async () => {
    await cluster.pauseReplay();
    try {
      await queryOn(cluster.primaryUrl, `INSERT INTO leads (id, enterprise_id, title) VALUES ($1, $2, 'lag')`, [
        randomUUID(),
        tenant.enterpriseId,
      ]);
      await replicaServing(false);
      const ready = await app.inject({ method: 'GET', url: '/health/ready' });
      expect(ready.statusCode).toBe(200);
      const [replica] = ready.json<{ replicas: { serving: boolean; reachable: boolean; lag_ms: number }[] }>().replicas;
      expect(replica).toMatchObject({ serving: false, reachable: true });
      expect(replica?.lag_ms).toBeGreaterThan(MAX_LAG_MS);
      const calls = await servedBy(LEAD_PAGE, async () => {
        expect((await listLeads(readerToken)).statusCode).toBe(200);
      });
      expect(calls).toEqual({ replica: 0, primary: 1 });
    } finally {
      await cluster.resumeReplay();
    }
    await replicaServing(true);
    const calls = await servedBy(LEAD_PAGE, async () => {
      expect((await listLeads(readerToken)).statusCode).toBe(200);
    });
    expect(calls).toEqual({ replica: 1, primary: 0 });
  });

  it('a replica stopped under load: no 5xx, reads move to the primary, and come back after it restarts', async () => {
    let running = true;
    const statuses = new Map<number, number>();
    const load = Array.from({ length: 4 }, async () => {
      while (running) {
        const res = await listLeads(readerToken);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      }
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await cluster.stopReplica();
      await replicaServing(false);
      const onPrimary = await cluster.primaryStatementCalls(LEAD_PAGE);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await cluster.primaryStatementCalls(LEAD_PAGE)).toBeGreaterThan(onPrimary);
      await cluster.startReplica();
      await replicaServing(true);
      const afterRestart = await servedBy(LEAD_PAGE, async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
      expect(afterRestart.replica).toBeGreaterThan(0);
    } finally {
      running = false;
      await Promise.all(load);
    }
    expect([...statuses.keys()]).toEqual([200]);
  });

  it('the change feed never misses a transaction held open over a read, with the replica configured (the feed reads the primary)', async () => {
    const feed = (cursor: string) =>
      app.inject({
        method: 'GET',
        url: `/api/v2/changes?cursor=${encodeURIComponent(cursor)}`,
        headers: apiHeaders('v2', readerToken, tenant.enterpriseId),
      });
    const start = await app.inject({
      method: 'GET',
      url: '/api/v2/changes/cursor',
      headers: apiHeaders('v2', readerToken, tenant.enterpriseId),
    });
    let cursor = start.json<{ data: { cursor: string } }>().data.cursor;
    const slow = new pg.Client(cluster.primaryUrl);
    await slow.connect();
    const horizonOnReplica = await cluster.replicaStatementCalls('%change_log_horizon%');
    try {
      const slowLead = randomUUID();
      await slow.query('BEGIN');
      await slow.query(`INSERT INTO leads (id, enterprise_id, title) VALUES ($1, $2, 'slow')`, [
        slowLead,
        tenant.enterpriseId,
      ]);
      const fastLead = await createLead(writerToken, 'fast');
      await cluster.waitForReplay();
      let page = await feed(cursor);
      expect(page.statusCode).toBe(200);
      let body = page.json<{ data: { id: string }[]; meta: { next_cursor: string } }>();
      expect(body.data.map((entry) => entry.id)).not.toContain(slowLead);
      cursor = body.meta.next_cursor;
      await slow.query('COMMIT');
      const seen = new Set(body.data.map((entry) => entry.id));
      for (let i = 0; i < 100 && !(seen.has(slowLead) && seen.has(fastLead)); i++) {
        page = await feed(cursor);
        body = page.json<{ data: { id: string }[]; meta: { next_cursor: string } }>();
        for (const entry of body.data) seen.add(entry.id);
        cursor = body.meta.next_cursor;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(seen).toContain(slowLead);
      expect(seen).toContain(fastLead);
    } finally {
      await slow.end();
    }
    expect(await cluster.replicaStatementCalls('%change_log_horizon%')).toBe(horizonOnReplica);
  });

  it('/health/ready and the metrics report the replica: reachable, lag, reads served', async () => {
    await cluster.waitForReplay();
    await replicaServing(true);
    const ready = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(ready.statusCode).toBe(200);
    const body = ready.json<{ replicas: Record<string, unknown>[]; primary_reads: number }>();
    expect(body.replicas).toEqual([
      {
        name: `127.0.0.1:${cluster.replicaPort}/postgres`,
        reachable: true,
        serving: true,
        lag_ms: expect.any(Number),
        receiving: true,
        reads: expect.any(Number),
      },
    ]);
    expect(body.replicas[0]?.reads).toBeGreaterThan(0);
    expect(body.primary_reads).toBeGreaterThan(0);
    const metrics = await metricsOf(app)?.registry.metrics();
    const name = `127.0.0.1:${cluster.replicaPort}/postgres`;
    expect(metrics).toContain(`finance_intake_db_replica_reachable{replica="${name}"} 1`);
    expect(metrics).toContain(`finance_intake_db_replica_serving{replica="${name}"} 1`);
    expect(metrics).toMatch(new RegExp(`finance_intake_db_replica_lag_seconds\\{replica="${name}"\\} [0-9.]+`));
    expect(metrics).toMatch(new RegExp(`finance_intake_db_routed_reads_total\\{server="${name}"\\} [1-9]`));
    expect(metrics).toMatch(/finance_intake_db_routed_reads_total\{server="primary"\} [1-9]/);
  });
});
