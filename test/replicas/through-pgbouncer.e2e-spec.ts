import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/app-config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { PoolReader } from '../../src/database/pool-reader.js';
import { ReplicaSet } from '../../src/database/replicas/replica-set.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { checkResponsesAgainstOpenApi } from '../helpers/openapi-contract.js';
import { queryOn, ReplicaCluster } from '../helpers/replica-cluster.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

const LEAD_PAGE = '%JOIN (SELECT id FROM leads WHERE enterprise_id%';

/**
 * The service with PgBouncer (transaction mode, before 1.21: no named statements) in front of
 * both the primary and the replica: the connection settings still hold, reads reach the replica
 * and a user's own writes are still read back at once.
 */
describe('primary and replica through PgBouncer in transaction mode', () => {
  let cluster: ReplicaCluster;
  let app: NestFastifyApplication;
  let tenant: Tenant;
  let token = '';

  beforeAll(async () => {
    cluster = await ReplicaCluster.start();
    const config = loadConfig({
      DATABASE_URL: cluster.bouncerPrimaryUrl,
      DATABASE_REPLICA_URLS: cluster.bouncerReplicaUrl,
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_POOL_MAX: '5',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      PAGE_CACHE_MB: '0',
    });
    app = checkResponsesAgainstOpenApi(await createApp(config, { url: cluster.bouncerPrimaryUrl, poolMax: 5 }));
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(
      { dataSource: app.get<DataSource>(getDataSourceToken()), cipher: app.get(FieldCipher) },
      fixture.doc,
    );
    token = await loginToken(app, tenant.user.email, tenant.user.password);
    await cluster.waitForReplay();
    for (let i = 0; i < 200 && app.get(ReplicaSet).serving().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });

  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  it("keeps the service's statement and lock timeouts on the pooled connections", async () => {
    const reader = app.get(PoolReader);
    for (let i = 0; i < 3; i++) {
      const [timeout] = await reader.query('SHOW statement_timeout');
      const [lock] = await reader.query('SHOW lock_timeout');
      expect(timeout).toEqual({ statement_timeout: '15s' });
      expect(lock).toEqual({ lock_timeout: '3s' });
    }
  });

  it("serves reads from the replica, and a user's own write at once while replay is paused", async () => {
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    const first = await app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers,
      payload: { title: 'a page to read', person_name: 'Pat' },
    });
    expect(first.statusCode).toBe(201);
    await cluster.waitForReplay();
    const onReplica = await cluster.replicaStatementCalls(LEAD_PAGE);
    expect((await app.inject({ method: 'GET', url: '/api/v2/leads', headers })).statusCode).toBe(200);
    expect(await cluster.replicaStatementCalls(LEAD_PAGE)).toBe(onReplica + 1);

    await cluster.pauseReplay();
    try {
      const created = await app.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers,
        payload: { title: 'through the pooler', person_name: 'Pat' },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ data: { id: string } }>().data.id;
      const list = await app.inject({ method: 'GET', url: '/api/v2/leads', headers });
      expect(list.json<{ data: { id: string }[] }>().data.map((lead) => lead.id)).toContain(id);
      const [row] = await queryOn<{ n: string }>(
        cluster.replicaUrl,
        'SELECT count(*)::text AS n FROM leads WHERE id = $1',
        [id],
      );
      // The replica does not have it yet: the answer came from the primary.
      expect(row?.n).toBe('0');
    } finally {
      await cluster.resumeReplay();
    }
  });

  it('answers the change feed and an idempotent write through the pooler', async () => {
    const headers = { ...apiHeaders('v2', token, tenant.enterpriseId), 'idempotency-key': 'pooled-write-1' };
    const first = await app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers,
      payload: { title: 'once', person_name: 'Pat' },
    });
    const again = await app.inject({
      method: 'POST',
      url: '/api/v2/leads',
      headers,
      payload: { title: 'once', person_name: 'Pat' },
    });
    expect(first.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    const cursor = await app.inject({
      method: 'GET',
      url: '/api/v2/changes/cursor',
      headers: apiHeaders('v2', token, tenant.enterpriseId),
    });
    expect(cursor.statusCode).toBe(200);
  });

  describe('readiness runs a named statement as the request path does', () => {
    async function readinessWith(
      url: string,
      prepared: boolean,
    ): Promise<{ status: number; body: Record<string, unknown> }> {
      const config = loadConfig({
        DATABASE_URL: url,
        DATABASE_PREPARED_STATEMENTS: String(prepared),
        DATABASE_POOL_MAX: '4',
        APP_KEY: TEST_APP_KEY,
        LOG_LEVEL: 'silent',
      });
      const other = await createApp(config, { url, poolMax: 4 });
      try {
        const res = await other.inject({ method: 'GET', url: '/health/ready' });
        return { status: res.statusCode, body: res.json() };
      } finally {
        await other.close();
      }
    }

    it('is not ready when the pooler loses named statements between transactions, saying what to set', async () => {
      // PgBouncer 1.18 keeps no prepared statements in transaction mode; `SELECT 1` still answers.
      const { status, body } = await readinessWith(cluster.bouncerPrimaryUrl, true);
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: 'unavailable', database: 'up', migrations: 'applied' });
      expect(body.message).toContain('DATABASE_PREPARED_STATEMENTS=false');
    });

    it('is ready through the pooler without named statements, and straight to the server with them', async () => {
      expect((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode).toBe(200);
      const direct = await readinessWith(cluster.primaryUrl, true);
      expect(direct.status).toBe(200);
      expect(direct.body).toMatchObject({ status: 'ok', database: 'up', migrations: 'applied' });
    });
  });
});
