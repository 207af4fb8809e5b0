import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execForm, healthcheckCommand, instructions, readDockerfile } from '../helpers/dockerfile.js';
import { freePort } from '../helpers/free-port.js';
import { waitForOk } from '../helpers/spawned-service.js';
import { TEST_APP_KEY } from '../helpers/test-app.js';
import { acquireTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const ROOT = resolve(import.meta.dirname, '../..');
const INSTALL_TIMEOUT_MS = 10 * 60_000;

/**
 * What the image does, without Docker: a clean directory with package.json, the lock file and
 * the built dist/ only, the runtime stage's `npm ci`, then the image's CMD and HEALTHCHECK. A
 * runtime import of a dev dependency fails here.
 */
describe('production install (the runtime image without Docker)', () => {
  const runtime = readDockerfile(resolve(ROOT, 'Dockerfile')).at(-1);
  let dir: string;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'finance-intake-image-'));
    // A fresh, empty database on the real server when there is one; else the embedded default.
    if (process.env.DATABASE_URL) database = await acquireTestDatabase({ migrated: false });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database?.release();
  });

  it(
    'installs production dependencies only, starts with the image command and becomes ready',
    async () => {
      if (!runtime) throw new Error('no runtime stage');
      for (const file of ['package.json', 'package-lock.json']) cpSync(join(ROOT, file), join(dir, file));
      cpSync(join(ROOT, 'dist/src'), join(dir, 'dist/src'), { recursive: true });
      cpSync(join(ROOT, 'dist/migrations'), join(dir, 'dist/migrations'), { recursive: true });

      // The runtime stage's own `npm ci ...` (the first command of its RUN line).
      const install = instructions(runtime, 'RUN')
        .flatMap((run) => run.split('&&').map((part) => part.trim()))
        .find((command) => command.startsWith('npm ci '));
      expect(install).toContain('--omit=dev');
      const installArgs = (install ?? '').split(/\s+/).slice(1);
      await new Promise<void>((done, fail) => {
        const npm = spawn('npm', installArgs, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
        let errors = '';
        npm.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
        npm.once('exit', (code) => (code === 0 ? done() : fail(new Error(`npm ci failed (${code}):\n${errors}`))));
      });
      // No dev dependency was installed (typescript, jest, ...).
      const listed = execFileSync('npm', ['ls', '--omit=dev', '--depth=0', '--json'], { cwd: dir }).toString();
      expect(listed).not.toContain('"typescript"');
      expect(listed).not.toContain('"jest"');

      const command = execForm(instructions(runtime, 'CMD').at(-1) ?? '') ?? [];
      expect(command[0]).toBe('node');
      const port = await freePort();
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: join(dir, '.data'),
        ...(database ? { ...database.env, APP_KEY: TEST_APP_KEY } : {}),
      };
      const service = spawn(process.execPath, command.slice(1), { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      service.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      service.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<number | null>((done) => service.once('exit', (code) => done(code)));
      try {
        await waitForOk(`http://127.0.0.1:${port}/health/ready`, service, () => output, 600);
        // The image's HEALTHCHECK passes against it.
        const check = healthcheckCommand(instructions(runtime, 'HEALTHCHECK').at(-1) ?? '') ?? [];
        execFileSync(process.execPath, check.slice(1), { cwd: dir, env, stdio: 'ignore' });
        expect(output.split('\n').filter((line) => line !== '' && !line.startsWith('{'))).toEqual([]);
      } finally {
        service.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    },
    INSTALL_TIMEOUT_MS,
  );
});
