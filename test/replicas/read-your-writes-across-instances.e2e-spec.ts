import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/app-config.js';
import { FieldCipher } from '../../src/crypto/field-cipher.js';
import { ReplicaSet } from '../../src/database/replicas/replica-set.js';
import { apiHeaders, importFixture, loginToken, tenantDocument, type Tenant } from '../helpers/fixtures.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { ReplicaCluster } from '../helpers/replica-cluster.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';

const LEAD_PAGE = '%JOIN (SELECT id FROM leads WHERE enterprise_id%';

/**
 * Two instances sharing a Redis of their own: a write answered by one instance is in the same
 * user's next read on the other, with the replica's replay paused (the position travels through
 * Redis, not the process).
 */
describe('read-your-writes across instances (positions in Redis)', () => {
  let cluster: ReplicaCluster;
  let redis: DisposableRedis;
  let first: NestFastifyApplication;
  let second: NestFastifyApplication;
  let tenant: Tenant;
  let token = '';

  async function instance(): Promise<NestFastifyApplication> {
    const config = loadConfig({
      DATABASE_URL: cluster.primaryUrl,
      DATABASE_REPLICA_URLS: cluster.replicaUrl,
      DATABASE_POOL_MAX: '4',
      REDIS_URL: redis.url,
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '1000000',
      PAGE_CACHE_MB: '0',
    });
    const app = await createApp(config, { url: cluster.primaryUrl, poolMax: 4 });
    for (let i = 0; i < 200 && app.get(ReplicaSet).serving().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return app;
  }

  beforeAll(async () => {
    cluster = await ReplicaCluster.start();
    redis = await DisposableRedis.start();
    first = await instance();
    second = await instance();
    const fixture = tenantDocument();
    tenant = fixture.tenant;
    await importFixture(
      { dataSource: first.get<DataSource>(getDataSourceToken()), cipher: first.get(FieldCipher) },
      fixture.doc,
    );
    token = await loginToken(first, tenant.user.email, tenant.user.password);
    await cluster.waitForReplay();
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await redis?.stop();
    await cluster?.stop();
  });

  it('a lead created through one instance is in the next list through the other, read from the primary', async () => {
    const headers = apiHeaders('v2', token, tenant.enterpriseId);
    await cluster.pauseReplay();
    try {
      const created = await first.inject({
        method: 'POST',
        url: '/api/v2/leads',
        headers,
        payload: { title: 'written on the first', person_name: 'Pat' },
      });
      expect(created.statusCode).toBe(201);
      const id = created.json<{ data: { id: string } }>().data.id;
      const onReplica = await cluster.replicaStatementCalls(LEAD_PAGE);
      const list = await second.inject({ method: 'GET', url: '/api/v2/leads', headers });
      expect(list.statusCode).toBe(200);
      expect(list.json<{ data: { id: string }[] }>().data.map((lead) => lead.id)).toEqual([id]);
      expect(await cluster.replicaStatementCalls(LEAD_PAGE)).toBe(onReplica);
      const retrieved = await second.inject({ method: 'GET', url: `/api/v2/leads/${id}`, headers });
      expect(retrieved.statusCode).toBe(200);
    } finally {
      await cluster.resumeReplay();
    }
    await cluster.waitForReplay();
    const onReplica = await cluster.replicaStatementCalls(LEAD_PAGE);
    expect((await second.inject({ method: 'GET', url: '/api/v2/leads', headers })).statusCode).toBe(200);
    expect(await cluster.replicaStatementCalls(LEAD_PAGE)).toBe(onReplica + 1);
  });
});
