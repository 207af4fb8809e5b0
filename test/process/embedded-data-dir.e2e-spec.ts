import { randomUUID } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { generateAppKey } from '../../src/config/app-key.js';
import { LOCK_FILE, type LockRecord } from '../../src/database/data-dir-lock.js';
import { DEMO_CREDENTIALS, DEMO_ENTERPRISE_ID } from '../../src/demo/demo-document.js';
import { guideBlock, reported, runGuideSteps } from '../helpers/guide-steps.js';
import { runCli } from '../helpers/run-cli.js';
import { getJson, runServiceToExit, startService, v2Headers, type ServiceProcess } from '../helpers/service-process.js';

const [DEMO] = DEMO_CREDENTIALS;
const KEY_MISMATCH = 'The key does not match the data:';
/** Each test starts several real processes; on a busy machine that takes minutes, not seconds. */
const PROCESS_TEST_TIMEOUT = 240_000;

/** Exactly one line on standard error. */
function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

/** The service prints JSON lines: its one fatal line's message. */
function serviceRefusal(stderr: string): string {
  const line = JSON.parse(oneLine(stderr)) as { level: number; msg: string };
  expect(line.level).toBe(60);
  return line.msg;
}

/** The files and folders under `path` (itself included) that group or others may read or enter. */
function openToOthers(path: string): string[] {
  const stat = lstatSync(path);
  const own = (stat.mode & 0o077) !== 0 ? [path] : [];
  if (!stat.isDirectory()) return own;
  return [...own, ...readdirSync(path).flatMap((name) => openToOthers(join(path, name)))];
}

/** Opens every file and folder under `path` to everybody, as an older release left them. */
function openToEverybody(path: string): number {
  const stat = lstatSync(path);
  chmodSync(path, stat.isDirectory() ? 0o777 : 0o666);
  return 1 + (stat.isDirectory() ? readdirSync(path).reduce((n, name) => n + openToEverybody(join(path, name)), 0) : 0);
}

function readLockRecord(dataDir: string): LockRecord {
  return JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockRecord;
}

/**
 * Issue 13, against real service processes (`dist/src/main.js`) on the embedded database: one
 * process per DATA_DIR, stale locks taken over, the key check at start, key rotation and backups
 * as the operator guide describes them (its steps run as written, in bash, with the compiled
 * CLI). The other CLI commands run the CLI's code in this test's process: the lock they meet is
 * the service's, another process either way, and sparing a node start per command keeps the
 * suite short.
 */
describe('embedded database shared safely (real processes)', () => {
  /** A DATA_DIR that has had its first start (demo data, generated key); copied per test. */
  let template: string;
  const running: ServiceProcess[] = [];

  /** A fresh working directory holding `.data`, a copy of the template. */
  function workspace(): { cwd: string; dataDir: string } {
    const cwd = mkdtempSync(join(tmpdir(), 'finance-intake-operator-'));
    const dataDir = join(cwd, '.data');
    cpSync(template, dataDir, { recursive: true });
    return { cwd, dataDir };
  }

  async function serve(env: Record<string, string>): Promise<ServiceProcess> {
    // A fixed public URL: pagination links do not depend on the port a process got.
    const service = await startService({ APP_URL: 'http://finance.test', ...env });
    running.push(service);
    return service;
  }

  beforeAll(async () => {
    template = join(mkdtempSync(join(tmpdir(), 'finance-intake-template-')), '.data');
    const first = await serve({ DATA_DIR: template });
    expect(await first.stop()).toBe(0);
    // The first start applied the schema, and said so in one JSON line naming the migrations.
    const applied = first
      .output()
      .split('\n')
      .filter((line) => line.includes('migration(s) at start'))
      .map((line) => JSON.parse(line) as { msg: string; migrations: string[] });
    expect(applied).toHaveLength(1);
    expect(applied[0]?.migrations[0]).toMatch(/^InitialSchema\d+$/);
    expect(applied[0]?.msg).toMatch(/^Applied \d+ migration\(s\) at start: InitialSchema/);
    expect(existsSync(join(template, LOCK_FILE))).toBe(false);
    // Its files are its owner's only, from the first start on.
    expect(readdirSync(join(template, 'pgdata')).length).toBeGreaterThan(10);
    expect(openToOthers(template)).toEqual([]);
  }, PROCESS_TEST_TIMEOUT);

  afterAll(async () => {
    for (const service of running) await service.stop('SIGKILL');
    rmSync(template, { recursive: true, force: true });
  });

  const demoUsers = async (service: ServiceProcess): Promise<string[]> => {
    const headers = await v2Headers(service.base, DEMO.email, DEMO.password, DEMO_ENTERPRISE_ID);
    const page = await getJson(`${service.base}/api/v2/users`, headers);
    expect(page.status).toBe(200);
    return (page.body as { data: { email: string }[] }).data.map((u) => u.email);
  };

  it(
    'refuses an import and a second service while the service holds DATA_DIR, writing nothing; the same import works once it stopped',
    async () => {
      const { cwd, dataDir } = workspace();
      const email = `new-${randomUUID().slice(0, 8)}@example.com`;
      const file = join(cwd, 'users.json');
      writeFileSync(
        file,
        JSON.stringify({
          users: [
            {
              id: randomUUID(),
              name: 'New Broker',
              email,
              is_active: true,
              password: 'new-password',
              enterprise_ids: [DEMO_ENTERPRISE_ID],
            },
          ],
        }),
      );
      const service = await serve({ DATA_DIR: dataDir });
      const lockBefore = readFileSync(join(dataDir, LOCK_FILE), 'utf8');

      const refused = await runCli(['import', file], { env: { DATA_DIR: dataDir } });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(oneLine(refused.stderr)).toBe(
        `The embedded database in ${dataDir} is in use by the service (pid ${service.pid}, port ${service.port}): ` +
          `stop it (kill ${service.pid}, or Ctrl+C in its terminal) and run the command again.`,
      );
      expect(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).toBe(lockBefore);
      expect(await demoUsers(service)).not.toContain(email);

      // A second service on the same DATA_DIR is refused, naming the first, which keeps serving.
      const second = await runServiceToExit({ DATA_DIR: dataDir });
      expect(second.code).toBe(1);
      expect(second.stdout).toBe('');
      expect(serviceRefusal(second.stderr)).toBe(
        `The embedded database in ${dataDir} is in use by the service (pid ${service.pid}, port ${service.port}): ` +
          `stop it first (kill ${service.pid}), or give this service another DATA_DIR.`,
      );
      expect((await fetch(`${service.base}/health`)).status).toBe(200);
      expect(await demoUsers(service)).toContain(DEMO.email);
      expect(readLockRecord(dataDir).pid).toBe(service.pid);
      expect(await service.stop()).toBe(0);
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

      // Nothing was written behind the service's back: a restart does not show it either.
      const restarted = await serve({ DATA_DIR: dataDir });
      expect(await demoUsers(restarted)).not.toContain(email);
      expect(await restarted.stop()).toBe(0);

      const imported = await runCli(['import', file], { env: { DATA_DIR: dataDir } });
      expect(imported).toMatchObject({ code: 0, stderr: '' });
      expect(imported.stdout).toContain('users: 1 (1 created, 0 updated, 0 unchanged)');
      const after = await serve({ DATA_DIR: dataDir });
      expect(await demoUsers(after)).toContain(email);
      await v2Headers(after.base, email, 'new-password', DEMO_ENTERPRISE_ID);
      expect(await after.stop()).toBe(0);
      // And after one more restart it is still there.
      const again = await serve({ DATA_DIR: dataDir });
      expect(await demoUsers(again)).toContain(email);
      expect(await again.stop()).toBe(0);
    },
    PROCESS_TEST_TIMEOUT,
  );

  it(
    'tightens a data folder an older release left open to others, saying so at start',
    async () => {
      const { dataDir } = workspace();
      const opened = openToEverybody(dataDir);
      const service = await serve({ DATA_DIR: dataDir });
      expect(openToOthers(dataDir)).toEqual([]);
      expect(await service.stop()).toBe(0);
      expect(openToOthers(dataDir)).toEqual([]);
      const warning = service
        .output()
        .split('\n')
        .find((line) => line.includes('FINANCE_INTAKE_DATA_DIR_MODES'));
      expect(warning).toContain(`${dataDir} held ${opened} file(s) or folder(s) readable by group or others`);
    },
    PROCESS_TEST_TIMEOUT,
  );

  it(
    'takes over the lock of a service killed with kill -9, from the CLI and from a new service',
    async () => {
      const { dataDir } = workspace();
      const killed = await serve({ DATA_DIR: dataDir });
      await killed.stop('SIGKILL');
      // The lock is still there, naming a process that is gone.
      expect(readLockRecord(dataDir)).toMatchObject({ role: 'service', pid: killed.pid, port: killed.port });

      const listed = await runCli(['enterprise:list'], { env: { DATA_DIR: dataDir } });
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toContain(DEMO_ENTERPRISE_ID);
      expect(existsSync(join(dataDir, LOCK_FILE))).toBe(false);

      const killedAgain = await serve({ DATA_DIR: dataDir });
      await killedAgain.stop('SIGKILL');
      const next = await serve({ DATA_DIR: dataDir });
      expect(readLockRecord(dataDir)).toMatchObject({ pid: next.pid, port: next.port });
      expect(await demoUsers(next)).toContain(DEMO.email);
      expect(await next.stop()).toBe(0);
    },
    PROCESS_TEST_TIMEOUT,
  );

  it(
    'stops at start, in one line, when the key does not read the data (service and CLI), writing nothing; ' +
      'rotating the key following the operator guide, after which the old key is not needed and no longer reads the data',
    async () => {
      const { cwd, dataDir } = workspace();
      const wrongKey = generateAppKey();
      const service = await runServiceToExit({ DATA_DIR: dataDir, APP_KEY: wrongKey });
      expect(service.code).toBe(1);
      expect(service.stdout).not.toContain('listening');
      expect(oneLine(service.stderr)).toContain(KEY_MISMATCH);

      const file = join(cwd, 'enterprise.json');
      const id = randomUUID();
      writeFileSync(file, JSON.stringify({ enterprises: [{ id, name: 'Wrong Key Finance', is_active: true }] }));
      const cli = await runCli(['import', file], { env: { DATA_DIR: dataDir, APP_KEY: wrongKey } });
      expect(cli.code).toBe(1);
      expect(cli.stdout).toBe('');
      expect(oneLine(cli.stderr)).toContain(KEY_MISMATCH);
      const listed = await runCli(['enterprise:list'], { env: { DATA_DIR: dataDir } });
      expect(listed.stdout).not.toContain(id);

      // With the right key (the generated one in DATA_DIR/app-key) it starts as before.
      const oldKey = readFileSync(join(dataDir, 'app-key'), 'utf8').trim();
      const before = await serve({ DATA_DIR: dataDir });
      const headers = await v2Headers(before.base, DEMO.email, DEMO.password, DEMO_ENTERPRISE_ID);
      const people = await getJson(`${before.base}/api/v2/people`, headers);
      expect(people.status).toBe(200);
      expect(await before.stop()).toBe(0);

      // The operator guide's steps, verbatim, from the directory holding .data (the default DATA_DIR).
      const steps = await runGuideSteps(guideBlock('key-rotation'), cwd, {}, ['APP_KEY', 'APP_PREVIOUS_KEYS']);
      expect(steps.code).toBe(0);
      const newKey = reported(steps.stdout, 'APP_KEY');
      expect(newKey).not.toBe(oldKey);
      expect(reported(steps.stdout, 'APP_PREVIOUS_KEYS')).toBe('');
      expect(steps.stdout).toContain(
        'Re-encrypted with the current key: person first names 265, provider B keys 1, key check 1, webhook secrets 0, ' +
          'previous webhook secrets 0.',
      );
      expect(steps.stderr).toContain('person first names: 265/265');

      // The new key alone reads everything, with or without APP_KEY (the key file was updated).
      const envs: Record<string, string>[] = [{ DATA_DIR: dataDir, APP_KEY: newKey }, { DATA_DIR: dataDir }];
      for (const env of envs) {
        const after = await serve(env);
        const again = await v2Headers(after.base, DEMO.email, DEMO.password, DEMO_ENTERPRISE_ID);
        expect(await getJson(`${after.base}/api/v2/people`, again)).toEqual(people);
        expect(await after.stop()).toBe(0);
      }
      // The old key was dropped: it reads nothing any more.
      const old = await runServiceToExit({ DATA_DIR: dataDir, APP_KEY: oldKey });
      expect(old.code).toBe(1);
      expect(oneLine(old.stderr)).toContain(KEY_MISMATCH);
      // Nothing is left to rotate.
      const rerun = await runCli(['key:rotate'], { env: { DATA_DIR: dataDir } });
      expect(rerun.stdout).toContain(
        'person first names 0, provider B keys 0, key check 0, webhook secrets 0, previous webhook secrets 0.',
      );
    },
    PROCESS_TEST_TIMEOUT,
  );

  it(
    'backs up while the service serves, and the operator guide restore gives a service with the same answers',
    async () => {
      const { cwd, dataDir } = workspace();
      const service = await serve({ DATA_DIR: dataDir });
      const headers = await v2Headers(service.base, DEMO.email, DEMO.password, DEMO_ENTERPRISE_ID);
      const created = await fetch(`${service.base}/api/v2/leads`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Written before the backup', person: 'Jane' }),
      });
      expect(created.status).toBe(201);
      const paths = [
        '/api/v2/people',
        '/api/v2/people?page=2',
        '/api/v2/leads',
        '/api/v2/organisations',
        '/api/v2/users',
      ];
      const answers = await Promise.all(paths.map((path) => getJson(`${service.base}${path}`, headers)));

      // Reads keep being served while the backup is taken.
      let reading = true;
      const reads = (async () => {
        let count = 0;
        while (reading) {
          expect((await getJson(`${service.base}/api/v2/people`, headers)).status).toBe(200);
          count++;
        }
        return count;
      })();
      // The key goes outside the working tree, to a home directory of its own (not under cwd).
      const home = mkdtempSync(join(tmpdir(), 'finance-intake-home-'));
      const backup = await runGuideSteps(guideBlock('backup'), cwd, { HOME: home });
      reading = false;
      expect(await reads).toBeGreaterThan(0);
      expect(backup.stderr).toBe('');
      expect(backup.code).toBe(0);
      expect(backup.stdout).toContain(`taken by the running service, pid ${service.pid}`);
      expect(readLockRecord(dataDir).pid).toBe(service.pid);
      expect(await service.stop()).toBe(0);

      expect(readdirSync(cwd).filter((name) => name.includes('key'))).toEqual([]);
      const restore = await runGuideSteps(guideBlock('restore'), cwd, { HOME: home });
      expect(restore.stderr).toBe('');
      expect(restore.code).toBe(0);
      expect(restore.stdout).toContain('2 enterprises, 2 users, 265 people');
      rmSync(home, { recursive: true, force: true });
      // The backup and the restored folder are their owner's only.
      expect(statSync(join(cwd, 'finance-intake-backup.tar.gz')).mode & 0o777).toBe(0o600);
      expect(openToOthers(join(cwd, 'restored'))).toEqual([]);

      const restored = await serve({ DATA_DIR: join(cwd, 'restored') });
      const login = await v2Headers(restored.base, DEMO.email, DEMO.password, DEMO_ENTERPRISE_ID);
      for (const [i, path] of paths.entries()) {
        expect(await getJson(`${restored.base}${path}`, login)).toEqual(answers[i]);
      }
      expect(await restored.stop()).toBe(0);

      // Restoring over an existing database is refused, and leaves it alone.
      const again = await runCli(['restore', '--input', join(cwd, 'finance-intake-backup.tar.gz')], {
        env: { DATA_DIR: join(cwd, 'restored') },
      });
      expect(again.code).toBe(1);
      expect(oneLine(again.stderr)).toContain('already holds a database');
    },
    PROCESS_TEST_TIMEOUT,
  );
});
