import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { execForm, healthcheckCommand, instructions, readDockerfile } from '../helpers/dockerfile.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface ComposeService {
  image?: string;
  pull_policy?: string;
  build?: string | { context: string };
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  volumes?: string[];
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

/** The exec-form command `npm start` runs (package.json's start script). */
function startCommand(): string[] {
  const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.replace(/^exec\s+/, '').split(/\s+/);
}

/** Docker has no daemon on these machines: the files are checked for what they must say. */
describe('Dockerfile', () => {
  const stages = readDockerfile(resolve(ROOT, 'Dockerfile'));
  const runtime = stages.at(-1);
  if (!runtime) throw new Error('no stage');

  it('builds in one stage and runs from another with production dependencies and dist/ only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = stages.find((s) => s.name === 'build');
    expect(instructions(build ?? runtime, 'RUN').some((r) => r.includes('npm run build'))).toBe(true);
    expect(instructions(runtime, 'RUN').some((r) => /\bnpm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(instructions(runtime, 'RUN').every((r) => !r.includes('npm run build'))).toBe(true);
    const copies = instructions(runtime, 'COPY');
    expect(copies).toContain('--from=build /app/dist ./dist');
    // Nothing from the build context but the manifest and lock file: no sources, no tests.
    expect(copies.filter((c) => !c.startsWith('--from='))).toEqual(['package.json package-lock.json ./']);
  });

  it('runs as a non-root user, node as PID 1 in exec form with the flags of npm start', () => {
    const user = instructions(runtime, 'USER').at(-1);
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    expect(execForm(instructions(runtime, 'CMD').at(-1) ?? '')).toEqual(startCommand());
    expect(instructions(runtime, 'ENTRYPOINT')).toEqual([]);
  });

  it('checks its health on the liveness probe with node itself', () => {
    const check = healthcheckCommand(instructions(runtime, 'HEALTHCHECK').at(-1) ?? '');
    expect(check?.[0]).toBe('node');
    expect(check?.join(' ')).toContain('/health/live');
  });

  it('keeps secrets, data and local builds out of the build context', () => {
    const ignored = readFileSync(resolve(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.git', 'node_modules', 'dist', '.data', '.env']) expect(ignored).toContain(entry);
  });
});

describe('docker-compose.yml', () => {
  const compose = parse(readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  const { postgres, redis, migrate, api } = compose.services;

  it('builds the image once, for the api, and runs the one-shot migrate from it before the api', () => {
    expect(api?.build).toBe('.');
    expect(api?.image).toBeDefined();
    // One build: only the api has a build section; migrate names the image it tags, and is never
    // pulled (no registry has it; Compose builds it for the api before starting either).
    expect(Object.entries(compose.services).filter(([, service]) => service.build !== undefined)).toEqual([
      ['api', api],
    ]);
    expect(migrate?.image).toBe(api?.image);
    expect(migrate?.pull_policy).toBe('never');
    expect(migrate?.command).toEqual(['node', 'dist/src/cli/main.js', 'migrate']);
    // Retried when it fails (the database not taking connections yet); done once it succeeded.
    expect(migrate?.restart).toMatch(/^on-failure(:\d+)?$/);
    expect(migrate?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(api?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    expect(api?.environment?.MIGRATIONS_RUN).toBe('false');
    expect(api?.environment?.DATABASE_URL).toBe(migrate?.environment?.DATABASE_URL);
    expect(api?.environment?.APP_KEY).toBe(migrate?.environment?.APP_KEY);
  });

  it('runs the image as built (its CMD, no source mounted), restarts it, and checks its liveness', () => {
    expect(api?.command).toBeUndefined();
    expect(api?.volumes).toBeUndefined();
    expect(['always', 'unless-stopped', 'on-failure']).toContain(api?.restart);
    expect(api?.healthcheck?.test[0]).toBe('CMD');
    expect(api?.healthcheck?.test.join(' ')).toContain('/health/live');
    // On the host's loopback only: a reverse proxy on the host publishes it.
    expect(api?.ports).toEqual(['127.0.0.1:3000:3000']);
  });

  it('calls PostgreSQL ready only when it takes TCP connections, not during its socket-only init', () => {
    const test = postgres?.healthcheck?.test ?? [];
    expect(test.slice(0, 2)).toEqual(['CMD', 'pg_isready']);
    expect(test[test.indexOf('-h') + 1]).toBe('127.0.0.1');
  });

  it('connects the service as a role that is not the superuser, with passwords from the environment', () => {
    const url = new URL(String(api?.environment?.DATABASE_URL).replace(/\$\{[^}]*\}/, 'PASSWORD'));
    expect(url.username).toBe('finance_intake');
    expect(String(api?.environment?.DATABASE_URL)).toContain(':${APP_DB_PASSWORD:?');
    expect(String(postgres?.environment?.POSTGRES_PASSWORD)).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    expect(postgres?.volumes).toContain('./docker/postgres-init:/docker-entrypoint-initdb.d:ro');
    const init = readFileSync(resolve(ROOT, 'docker/postgres-init/01-app-role.sh'), 'utf8');
    expect(init).toMatch(/CREATE ROLE finance_intake LOGIN PASSWORD :'app_password' NOSUPERUSER/);
    expect(init).toContain('ALTER DATABASE finance_intake OWNER TO finance_intake');
  });

  it('publishes neither PostgreSQL nor Redis on the host', () => {
    expect(postgres?.ports).toBeUndefined();
    expect(redis?.ports).toBeUndefined();
  });
});
