import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { POSTGRES_BIN, ReplicaPair } from '../../bench/lib/replica-pair.js';
import { createApp } from '../../src/app.factory.js';
import { loadConfig } from '../../src/config/app-config.js';
import { freePort } from '../helpers/free-port.mjs';
import { queryOn } from '../helpers/replica-cluster.js';
import { replicaToolsMissing } from '../helpers/replica-tools.mjs';
import { TEST_APP_KEY } from '../helpers/test-app.js';

const ENTRYPOINT = resolve(import.meta.dirname, '../../docker/scale/replica-entrypoint.sh');
const SLOT = 'replica_recovery';
const MB = 1024 * 1024;

interface ReplicaReport {
  reachable: boolean;
  serving: boolean;
  receiving: boolean;
}

/** The scale set-up's replica entrypoint, run as it is (as the postgres user) against a real primary. */
class ReplicaEntrypoint {
  private child: ChildProcess | undefined;
  output = '';

  constructor(private readonly pair: ReplicaPair) {}

  start(): void {
    const user = this.pair.serverUser;
    this.child = spawn(
      '/bin/sh',
      [
        ENTRYPOINT,
        '-p',
        String(this.pair.replicaPort),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${this.pair.folder}`,
      ],
      {
        cwd: this.pair.folder,
        ...(user ?? {}),
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: `${POSTGRES_BIN}:/usr/bin:/bin`,
          PGDATA: this.pair.replicaDir,
          PRIMARY_HOST: '127.0.0.1',
          PRIMARY_PORT: String(this.pair.primaryPort),
          REPLICATION_USER: 'postgres',
          REPLICATION_SLOT: SLOT,
          REPLICA_WATCH_SECONDS: '1',
        },
      },
    );
    this.child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
  }

  /** SIGTERM, as `docker stop` sends it: the entrypoint stops PostgreSQL and ends. */
  async stop(): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/**
 * Replicas that come back: the replica streams through a physical slot, the primary gives the
 * slot up past max_slot_wal_keep_size (so a dead replica cannot fill its disk), and the
 * entrypoint clones a replica whose slot was given up, at start and while it runs. Readiness
 * tells a replica that answers but fell off.
 */
describe('a replica that fell behind the primary’s WAL is cloned again by its entrypoint', () => {
  let pair: ReplicaPair;
  let entrypoint: ReplicaEntrypoint;
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const missing = replicaToolsMissing();
    if (missing) throw new Error(`The replica tests need ${missing}`);
    pair = await ReplicaPair.startPrimary(
      // Small bounds, so a few hundred MB of WAL outrun the slot.
      ['max_slot_wal_keep_size = 64MB', 'max_wal_size = 64MB', 'min_wal_size = 32MB', 'wal_keep_size = 0'],
      freePort,
    );
    entrypoint = new ReplicaEntrypoint(pair);
    const config = loadConfig({
      DATABASE_URL: pair.primaryUrl,
      DATABASE_REPLICA_URLS: pair.replicaUrl,
      DATABASE_POOL_MAX: '3',
      APP_KEY: TEST_APP_KEY,
      LOG_LEVEL: 'silent',
      METRICS_PORT: String(await freePort()),
    });
    app = await createApp(config, { url: pair.primaryUrl, poolMax: 3 });
  }, 120_000);

  afterAll(async () => {
    await entrypoint?.stop();
    await app?.close();
    await pair?.stop();
  });

  const primary = <T extends Record<string, unknown>>(sql: string, parameters: unknown[] = []) =>
    queryOn<T>(pair.primaryUrl, sql, parameters);

  async function readinessReplica(): Promise<ReplicaReport> {
    const res = await app.inject({ method: 'GET', url: '/health/ready' });
    expect(res.statusCode).toBe(200);
    const [replica] = res.json<{ replicas: ReplicaReport[] }>().replicas;
    if (!replica) throw new Error('readiness lists no replica');
    return replica;
  }

  async function readinessShows(expected: Partial<ReplicaReport>): Promise<void> {
    await waitUntil(
      async () => {
        const replica = await readinessReplica();
        return Object.entries(expected).every(([key, value]) => replica[key as keyof ReplicaReport] === value);
      },
      `readiness to show the replica ${JSON.stringify(expected)}`,
    );
  }

  async function slot(): Promise<{ active: boolean; wal_status: string } | undefined> {
    const [row] = await primary<{ active: boolean; wal_status: string }>(
      'SELECT active, wal_status FROM pg_replication_slots WHERE slot_name = $1',
      [SLOT],
    );
    return row;
  }

  /** Writes at least `megabytes` of WAL on the primary, then checkpoints so old WAL is removed. */
  async function writeWal(table: string, megabytes: number): Promise<number> {
    const [before] = await primary<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await primary(`CREATE TABLE ${table} (id int, pad text)`);
    // About 1 KB a row, below the size PostgreSQL compresses or moves out of line.
    await primary(`INSERT INTO ${table} SELECT g, repeat(md5(g::text), 30) FROM generate_series(1, $1) g`, [
      Math.ceil((megabytes * MB) / 1000),
    ]);
    await primary('CHECKPOINT');
    const [written] = await primary<{ bytes: string }>(
      'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint::text AS bytes',
      [before?.lsn],
    );
    return Number(written?.bytes);
  }

  async function caughtUp(table: string): Promise<void> {
    await waitUntil(async () => {
      const [standby] = await queryOn<{ standby: boolean }>(pair.replicaUrl, 'SELECT pg_is_in_recovery() AS standby');
      return standby?.standby === true;
    }, 'the standby to accept connections');
    await pair.waitForReplay();
    const [expected] = await primary<{ rows: string }>(`SELECT count(*)::text AS rows FROM ${table}`);
    const [onReplica] = await queryOn<{ rows: string }>(pair.replicaUrl, `SELECT count(*)::text AS rows FROM ${table}`);
    expect(onReplica?.rows).toBe(expected?.rows);
  }

  /** PostgreSQL started on the replica's folder as the entrypoint used to: no slot check, no clone. */
  async function startWithoutEntrypoint(): Promise<string> {
    const log = join(pair.folder, 'replica-direct.log');
    await run(join(POSTGRES_BIN, 'pg_ctl'), [
      '-D',
      pair.replicaDir,
      '-o',
      `-p ${pair.replicaPort} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${pair.folder}`,
      '-l',
      log,
      '-w',
      'start',
    ]);
    return log;
  }

  function run(command: string, args: string[]): Promise<void> {
    const user = pair.serverUser;
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd: pair.folder, ...(user ?? {}), stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}`))));
    });
  }

  it('streams through its slot; stopped while 300 MB of WAL is written, it is told as fallen off when started as before, and the entrypoint clones it again', async () => {
    entrypoint.start();
    await primary('CREATE TABLE seed AS SELECT 1 AS id');
    await caughtUp('seed');
    expect(await slot()).toEqual({ active: true, wal_status: 'reserved' });
    await readinessShows({ reachable: true, receiving: true, serving: true });

    expect(await entrypoint.stop()).toBe(0);
    await readinessShows({ reachable: false, receiving: false, serving: false });
    const written = await writeWal('filler', 300);
    expect(written).toBeGreaterThanOrEqual(300 * MB);
    // The primary kept at most max_slot_wal_keep_size for the dead replica, and gave the slot up.
    await waitUntil(async () => (await slot())?.wal_status === 'lost', 'the slot to be given up');

    // Started on its old folder without the entrypoint's check, the standby answers but can
    // never catch up: readiness says it fell off, and reads stay on the primary.
    const log = await startWithoutEntrypoint();
    await readinessShows({ reachable: true, receiving: false, serving: false });
    await waitUntil(
      () => readFileSync(log, 'utf8').includes('has already been removed'),
      'the standby to find its WAL removed',
    );
    await run(join(POSTGRES_BIN, 'pg_ctl'), ['-D', pair.replicaDir, '-m', 'fast', '-w', 'stop']);

    entrypoint.output = '';
    entrypoint.start();
    await caughtUp('filler');
    expect(entrypoint.output).toContain(`slot ${SLOT} is lost`);
    expect(entrypoint.output).toContain('cloning');
    expect(await slot()).toEqual({ active: true, wal_status: 'reserved' });
    await readinessShows({ reachable: true, receiving: true, serving: true });
  }, 240_000);

  it('a running replica whose slot is gone (dropped on the primary) is stopped, cloned and streams again', async () => {
    await caughtUp('filler');
    entrypoint.output = '';
    // The walsender holds the slot while the replica streams, and the replica reconnects at
    // once: end the walsender and drop the slot in one go, again until the slot is free.
    await primary(`DO $$
      BEGIN
        FOR attempt IN 1..500 LOOP
          PERFORM pg_terminate_backend(active_pid, 1000) FROM pg_replication_slots
            WHERE slot_name = '${SLOT}' AND active;
          BEGIN
            PERFORM pg_drop_replication_slot('${SLOT}');
            RETURN;
          EXCEPTION WHEN object_in_use THEN
            PERFORM pg_sleep(0.01);
          END;
        END LOOP;
        RAISE 'the slot stayed in use';
      END $$`);
    expect(await slot()).toBeUndefined();
    await primary('CREATE TABLE after_drop AS SELECT generate_series(1, 1000) AS id');
    await waitUntil(() => entrypoint.output.includes('while the replica runs'), 'the entrypoint to notice');
    await caughtUp('after_drop');
    expect(entrypoint.output).toContain('cloning');
    expect(await slot()).toEqual({ active: true, wal_status: 'reserved' });
    await readinessShows({ reachable: true, receiving: true, serving: true });
  }, 180_000);
});
