import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/app-config.js';
import { IGNORED_STARTUP_PARAMETERS, SERVICE_SETTINGS } from '../helpers/pgbouncer.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

interface ComposeService {
  image?: string;
  build?: string | { context: string; dockerfile: string };
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
}

/** A compose URL with its ${...} placeholders filled, so it parses as a URL. */
function url(value: unknown): URL {
  return new URL(String(value).replace(/\$\{[^}]*\}/g, 'secret'));
}

/** Docker has no daemon on these machines: the files are checked for what they must say. */
describe('docker-compose.scale.yml: primary, streaming replica, PgBouncer, Redis, two API instances, a proxy', () => {
  const compose = parse(read('docker-compose.scale.yml'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const services = compose.services;
  const primary = services['postgres-primary'];
  const replica = services['postgres-replica'];
  const apis = [services['api-1'], services['api-2']];

  it('has every part and publishes only the proxy, on the loopback', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['api-1', 'api-2', 'migrate', 'pgbouncer', 'postgres-primary', 'postgres-replica', 'proxy', 'redis'].sort(),
    );
    for (const [name, service] of Object.entries(services)) {
      if (name === 'proxy') expect(service.ports).toEqual(['127.0.0.1:3000:80']);
      else expect(service.ports).toBeUndefined();
    }
  });

  it('runs the primary with WAL for replicas and a replication role, and the replica from pg_basebackup -R', () => {
    expect(primary?.command?.join(' ')).toContain('wal_level=replica');
    expect(primary?.volumes).toContain(
      './docker/scale/02-replication.sh:/docker-entrypoint-initdb.d/02-replication.sh:ro',
    );
    expect(read('docker/scale/02-replication.sh')).toMatch(/CREATE ROLE replicator LOGIN REPLICATION/);
    expect(read('docker/scale/02-replication.sh')).toContain('host replication replicator all scram-sha-256');
    const entrypoint = read('docker/scale/replica-entrypoint.sh');
    expect(entrypoint).toMatch(/pg_basebackup -h postgres-primary -U replicator\s*\\?\s*-D "\$PGDATA" -R -X stream/);
    expect(entrypoint).toContain('hot_standby=on');
    expect(replica?.entrypoint).toEqual(['/bin/sh', '/replica-entrypoint.sh']);
    expect(replica?.depends_on).toMatchObject({ 'postgres-primary': { condition: 'service_healthy' } });
  });

  it('puts PgBouncer in transaction mode before both servers, with the settings the service needs', () => {
    const ini = read('docker/scale/pgbouncer.ini');
    expect(ini).toMatch(/^pool_mode = transaction$/m);
    expect(ini).toContain(`ignore_startup_parameters = ${IGNORED_STARTUP_PARAMETERS}`);
    expect(ini).toContain(`finance_intake = host=postgres-primary port=5432 dbname=finance_intake ${SERVICE_SETTINGS}`);
    expect(ini).toContain(
      `finance_intake_replica = host=postgres-replica port=5432 dbname=finance_intake ${SERVICE_SETTINGS}`,
    );
    expect(read('docker/scale/pgbouncer.Dockerfile')).toContain('apt-get install -y --no-install-recommends pgbouncer');
  });

  it('runs two API instances alike: primary and replica through PgBouncer, no named statements, Redis shared', () => {
    expect(apis[0]).toEqual(apis[1]);
    const env = apis[0]?.environment ?? {};
    expect(url(env.DATABASE_URL).host).toBe('pgbouncer:6432');
    expect(url(env.DATABASE_URL).pathname).toBe('/finance_intake');
    expect(url(env.DATABASE_REPLICA_URLS).host).toBe('pgbouncer:6432');
    expect(url(env.DATABASE_REPLICA_URLS).pathname).toBe('/finance_intake_replica');
    expect(env.DATABASE_PREPARED_STATEMENTS).toBe('false');
    expect(env.REDIS_URL).toBe('redis://redis:6379');
    expect(env.MIGRATIONS_RUN).toBe('false');
    // The environment is one the service accepts.
    const filled: [string, string][] = Object.entries(env).map(([name, value]) => [
      name,
      String(value).replace(/\$\{[^}]*\}/g, 'secret'),
    ]);
    const config = loadConfig({ ...Object.fromEntries(filled), APP_KEY: '0'.repeat(64) });
    expect(config.databaseReplicaUrls).toHaveLength(1);
  });

  it('migrates once, straight to the primary (never through the pooler), before the instances start', () => {
    const migrate = services.migrate;
    expect(migrate?.command).toEqual(['node', 'dist/src/cli/main.js', 'migrate']);
    expect(url(migrate?.environment?.DATABASE_URL).host).toBe('postgres-primary:5432');
    for (const api of apis)
      expect(api?.depends_on).toMatchObject({ migrate: { condition: 'service_completed_successfully' } });
  });

  it('proxies to both instances', () => {
    const nginx = read('docker/scale/nginx.conf');
    expect(nginx).toContain('server api-1:3000;');
    expect(nginx).toContain('server api-2:3000;');
    expect(services.proxy?.volumes).toEqual(['./docker/scale/nginx.conf:/etc/nginx/nginx.conf:ro']);
  });
});
