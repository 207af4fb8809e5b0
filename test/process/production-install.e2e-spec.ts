import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execForm, healthcheckCommand, instructions, readDockerfile } from '../helpers/dockerfile.js';
import { tenantDocument } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.mjs';
import { guideBlock } from '../helpers/guide-steps.js';
import { login, waitForOk } from '../helpers/spawned-service.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const ROOT = resolve(import.meta.dirname, '../..');
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** The placeholder the guide's database block exports as DATABASE_URL. */
const GUIDE_DATABASE_URL = 'postgres://app@db.internal/finance';
const FIRST_USER_PASSWORD = 'a-long-first-password';

/** What a clone has: the tracked files and the new ones git does not ignore (no node_modules, no dist). */
function copyCheckout(target: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(target, file)), { recursive: true });
    cpSync(join(ROOT, file), join(target, file));
  }
}

/**
 * Runs shell steps verbatim in bash (errexit, nounset, pipefail) as their own process group, with
 * `env` only and `stdin` on standard input.
 */
function runSteps(script: string, cwd: string, env: Record<string, string>, stdin = ''): ChildProcess {
  const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdin?.end(stdin);
  return child;
}

function collect(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return () => output;
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

/** Waits until nothing answers at the URL (the service stopped). */
async function untilClosed(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = await fetch(url).then(
      () => true,
      () => false,
    );
    if (!open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} still answers`);
}

/**
 * The operator guide's production install, exactly as written, on what a clone holds: its
 * install block (build once with every dependency, then `npm prune --omit=dev`), then its
 * database block (key, migrate, import, first user, `npm start`) with the guide's placeholders
 * filled in. No dev dependency is left, so a start or CLI call that wanted TypeScript fails here.
 * Then the container image's CMD and HEALTHCHECK on the same production-only tree (what the
 * runtime stage holds: production dependencies and dist/), without Docker.
 */
describe('production install (operator guide), and the image command on it', () => {
  let dir: string;
  let database: TestDatabase;
  /** Only the basics: no npm_* variables of the test run leak into the steps. */
  const baseEnv = (): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    TZ: 'UTC',
    // The registry's packages come from npm's cache when it has them (the steps are unchanged).
    npm_config_prefer_offline: 'true',
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'finance-intake-production-'));
    database = await acquireTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.release();
  }, 300_000);

  it(
    'installs, builds once, keeps production dependencies only, then migrates, imports and starts',
    async () => {
      copyCheckout(dir);
      expect(existsSync(join(dir, 'node_modules'))).toBe(false);
      expect(existsSync(join(dir, 'dist'))).toBe(false);

      const installSteps = guideBlock('production-install');
      expect(installSteps).toContain('npm prune --omit=dev');
      const install = runSteps(installSteps, dir, baseEnv());
      const installOutput = collect(install);
      expect({ code: await exitCode(install), output: installOutput().slice(-4000) }).toMatchObject({ code: 0 });
      // npm ran on the project's Node: no package refused the Node it checked against.
      expect(installOutput()).toContain('Installing dependencies with npm on Node');
      expect(installOutput()).not.toContain('EBADENGINE');

      // Production dependencies only: no test runner, linter or formatter, and not the type
      // packages only the build needs. (TypeScript and @types/node stay: production packages
      // depend on them; without the others tsc could not build anyway.)
      for (const dev of ['jest', 'ts-jest', 'eslint', 'prettier', '@types/pg-copy-streams'])
        expect({ dev, installed: existsSync(join(dir, 'node_modules', dev)) }).toEqual({ dev, installed: false });

      const { doc, tenant } = tenantDocument();
      writeFileSync(join(dir, 'data.json'), JSON.stringify(doc));
      const databaseSteps = guideBlock('production-database');
      expect(databaseSteps).toContain(GUIDE_DATABASE_URL);
      expect(databaseSteps).toContain('<ENTERPRISE_ID>');
      expect(databaseSteps.trim().split('\n').at(-1)).toBe('npm start');
      const port = await freePort();
      const steps = runSteps(
        databaseSteps.replace(GUIDE_DATABASE_URL, database.url).replace('<ENTERPRISE_ID>', tenant.enterpriseId),
        dir,
        // The test database's other variables (the embedded one's), and where to listen.
        { ...baseEnv(), ...database.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: join(dir, '.data') },
        `${FIRST_USER_PASSWORD}\n`,
      );
      const output = collect(steps);
      const stopped = exitCode(steps);
      try {
        await waitForOk(`http://127.0.0.1:${port}/health/ready`, steps, output, 300_000);
        // The imported user and the one the guide creates both log in.
        await login(`http://127.0.0.1:${port}`, tenant.user.email, tenant.user.password);
        await login(`http://127.0.0.1:${port}`, 'ann@example.com', FIRST_USER_PASSWORD);
        // Nothing was compiled on the way (no dev dependency to do it with).
        expect(output()).not.toMatch(/Building dist|rebuilding dist|error TS/);
      } finally {
        if (steps.pid !== undefined && steps.exitCode === null) process.kill(-steps.pid, 'SIGTERM');
        await stopped;
        await untilClosed(`http://127.0.0.1:${port}/health/live`);
      }
    },
    INSTALL_TIMEOUT_MS,
  );

  it('starts with the image command on that tree, and the image HEALTHCHECK passes', async () => {
    const runtime = readDockerfile(resolve(ROOT, 'Dockerfile')).at(-1);
    if (!runtime) throw new Error('no runtime stage');
    // The runtime stage installs what the prune left: production dependencies only.
    expect(instructions(runtime, 'RUN').some((run) => /\bnpm ci\b.*--omit=dev/.test(run))).toBe(true);
    const command = execForm(instructions(runtime, 'CMD').at(-1) ?? '') ?? [];
    expect(command[0]).toBe('node');
    const port = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: join(dir, '.data'),
      ...database.env,
      APP_KEY: TEST_APP_KEY,
    };
    // The guide's steps generated their own key; the image run is given the test key and the
    // database the steps wrote is read with it only if it matches, so start on a fresh schema.
    await database.release();
    database = await acquireTestDatabase({ migrated: false });
    Object.assign(env, database.env);
    const service = spawn(process.execPath, command.slice(1), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = collect(service);
    const exited = exitCode(service);
    try {
      await waitForOk(`http://127.0.0.1:${port}/health/ready`, service, output, 300_000);
      const check = healthcheckCommand(instructions(runtime, 'HEALTHCHECK').at(-1) ?? '') ?? [];
      execFileSync(process.execPath, check.slice(1), { cwd: dir, env, stdio: 'ignore' });
      expect(
        output()
          .split('\n')
          .filter((line) => line !== '' && !line.startsWith('{')),
      ).toEqual([]);
    } finally {
      service.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
