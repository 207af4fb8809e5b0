import { readdirSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/app-config.js';
import { IGNORED_STARTUP_PARAMETERS, SERVICE_SETTINGS } from '../helpers/pgbouncer.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

interface ComposeService {
  image?: string;
  pull_policy?: string;
  logging?: { driver: string; options: Record<string, string> };
  deploy?: { resources?: { limits?: { cpus?: string; memory?: string } } };
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
  return new URL(
    String(value)
      .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')
      .replace(/\$\{[^}]*\}/g, 'secret'),
  );
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
    expect(entrypoint).toMatch(
      /pg_basebackup -h "\$PRIMARY_HOST" -p "\$PRIMARY_PORT" -U "\$REPLICATION_USER"\s*\\?\s*-D "\$PGDATA" -R -X stream -c fast -C -S "\$REPLICATION_SLOT"/,
    );
    expect(entrypoint).toContain('hot_standby=on');
    expect(replica?.entrypoint).toEqual(['/bin/sh', '/replica-entrypoint.sh']);
    expect(replica?.environment).toMatchObject({
      PRIMARY_HOST: 'postgres-primary',
      REPLICATION_USER: 'replicator',
      REPLICATION_SLOT: 'replica_1',
    });
    // The replica's slot keeps the WAL it needs, up to a bound: a dead replica cannot fill the disk.
    expect(primary?.command?.join(' ')).toContain('max_slot_wal_keep_size=2GB');
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
    // Links carry the address clients use, port included (the proxy passes the Host it was sent).
    expect(url(env.APP_URL).origin).toBe('http://127.0.0.1:3000');
    expect(read('docker/scale/nginx.conf')).toContain('proxy_set_header Host $http_host;');
    // The environment is one the service accepts.
    const filled: [string, string][] = Object.entries(env).map(([name, value]) => [
      name,
      String(value)
        .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')
        .replace(/\$\{[^}]*\}/g, 'secret'),
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

  it('builds the API image once (the migrate service) and never pulls it for the instances', () => {
    const building = Object.entries(services).filter(([, service]) => service.build === '.');
    expect(building.map(([name]) => name)).toEqual(['migrate']);
    for (const api of apis) {
      expect(api?.image).toBe(services.migrate?.image);
      expect(api?.pull_policy).toBe('never');
      expect(api?.build).toBeUndefined();
    }
  });
});

/** Both compose files: what an operator's host needs from every service. */
describe.each(['docker-compose.yml', 'docker-compose.scale.yml'])('%s: limits, log rotation, pinned images', (file) => {
  const services = (parse(read(file), { merge: true }) as { services: Record<string, ComposeService> }).services;

  it.each(Object.keys(services))('%s has CPU and memory limits and rotated logs', (name) => {
    const service = services[name];
    expect(service?.deploy?.resources?.limits).toEqual({ cpus: expect.any(String), memory: expect.any(String) });
    expect(service?.logging).toEqual({ driver: 'json-file', options: { 'max-size': '10m', 'max-file': '5' } });
  });

  it('pins every image it pulls to a minor version', () => {
    const pulled = Object.values(services)
      .map((service) => service.image)
      .filter((image): image is string => image !== undefined && !image.startsWith('finance-intake:'));
    expect(pulled.length).toBeGreaterThan(0);
    for (const image of pulled) expect(image).toMatch(/:\d+\.\d+(\.\d+)?-[a-z]+$/);
  });
});

describe('container build files', () => {
  it('pin their base images to a minor version', () => {
    for (const file of ['Dockerfile', 'docker/scale/pgbouncer.Dockerfile']) {
      const bases = [...read(file).matchAll(/^FROM (\S+)/gm)].map((match) => match[1]);
      expect(bases.length).toBeGreaterThan(0);
      for (const base of bases) expect(base).toMatch(/:\d+\.\d+(\.\d+)?-[a-z-]+$/);
    }
  });

  it('keeps every script under docker/ executable (compose mounts them as they are)', () => {
    for (const folder of ['docker/postgres-init', 'docker/scale']) {
      for (const name of readdirSync(resolve(ROOT, folder)).filter((file) => file.endsWith('.sh'))) {
        expect({ name, executable: (statSync(resolve(ROOT, folder, name)).mode & 0o111) !== 0 }).toEqual({
          name,
          executable: true,
        });
      }
    }
  });
});
