import { spawn, type SpawnOptions } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runMigrations } from '../../src/database/migration-runner.js';
import { openDataSource } from '../../src/data-source.js';
import { freePort } from './free-port.js';
import { serverUser, startPgBouncer, type RunningPgBouncer } from './pgbouncer.mjs';
import { POSTGRES_BIN, replicaToolsMissing } from './replica-tools.mjs';

/** Runs a server tool to its end; rejects with its output when it fails. */
function run(command: string, args: string[], options: SpawnOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** One statement on a server, through a connection of its own. */
export async function queryOn<T extends Record<string, unknown>>(
  url: string,
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, parameters)).rows;
  } finally {
    await client.end();
  }
}

/**
 * A real streaming-replication pair of this test file's own, and a real PgBouncer in front of
 * both in transaction mode: a primary `initdb`'d on a free port (WAL for replicas, a replication
 * entry in its own pg_hba.conf, pg_stat_statements loaded), migrated; a hot standby made by
 * `pg_basebackup -R`; PgBouncer (databases `primary` and `replica`). Everything lives in one
 * temporary directory and is stopped and removed by `stop()`; the machine's own server is untouched.
 */
export class ReplicaCluster {
  private bouncer: RunningPgBouncer | undefined;

  private constructor(
    private readonly dir: string,
    readonly primaryPort: number,
    readonly replicaPort: number,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {}

  static async start(): Promise<ReplicaCluster> {
    const missing = replicaToolsMissing();
    if (missing) throw new Error(`The replica tests need ${missing}`);
    const dir = mkdtempSync(join(tmpdir(), 'replica-cluster-'));
    const user = serverUser();
    if (user) chownSync(dir, user.uid, user.gid);
    const cluster = new ReplicaCluster(dir, await freePort(), await freePort(), user);
    try {
      await cluster.initPrimary();
      await cluster.initReplica();
      await cluster.startBouncer();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  get primaryUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.primaryPort}/postgres`;
  }

  get replicaUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.replicaPort}/postgres`;
  }

  /** PgBouncer's pool of the primary, in transaction mode. */
  get bouncerPrimaryUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.bouncerPort}/primary`;
  }

  /** PgBouncer's pool of the replica, in transaction mode. */
  get bouncerReplicaUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.bouncerPort}/replica`;
  }

  private get primaryDir(): string {
    return join(this.dir, 'primary');
  }

  private get replicaDir(): string {
    return join(this.dir, 'replica');
  }

  private asServer(): SpawnOptions {
    return this.user ? { uid: this.user.uid, gid: this.user.gid, cwd: this.dir } : { cwd: this.dir };
  }

  private tool(name: string, args: string[]): Promise<string> {
    return run(join(POSTGRES_BIN, name), args, this.asServer());
  }

  private async initPrimary(): Promise<void> {
    await this.tool('initdb', ['-D', this.primaryDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    appendFileSync(
      join(this.primaryDir, 'postgresql.conf'),
      [
        `port = ${this.primaryPort}`,
        `listen_addresses = '127.0.0.1'`,
        `unix_socket_directories = '${this.dir}'`,
        'wal_level = replica',
        'max_wal_senders = 5',
        'hot_standby = on',
        // Replay is paused by tests; a standby query is never cancelled to let replay go on.
        'max_standby_streaming_delay = -1',
        'hot_standby_feedback = on',
        `shared_preload_libraries = 'pg_stat_statements'`,
        'pg_stat_statements.track = all',
        'fsync = off',
        'full_page_writes = off',
        'shared_buffers = 32MB',
        'max_connections = 60',
        '',
      ].join('\n'),
    );
    appendFileSync(join(this.primaryDir, 'pg_hba.conf'), 'host replication postgres 127.0.0.1/32 trust\n');
    await this.pgCtl(this.primaryDir, 'start');
    await queryOn(this.primaryUrl, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const dataSource = await openDataSource({ url: this.primaryUrl, poolMax: 1 });
    try {
      await runMigrations(dataSource);
    } finally {
      await dataSource.destroy();
    }
  }

  private async initReplica(): Promise<void> {
    await run(
      '/usr/bin/pg_basebackup',
      [
        '-h',
        '127.0.0.1',
        '-p',
        String(this.primaryPort),
        '-U',
        'postgres',
        '-D',
        this.replicaDir,
        '-R',
        '-X',
        'stream',
      ],
      { ...this.asServer(), env: { ...process.env, PGAPPNAME: 'replica' } },
    );
    appendFileSync(join(this.replicaDir, 'postgresql.conf'), `port = ${this.replicaPort}\n`);
    await this.startReplica();
  }

  private async pgCtl(dataDir: string, action: 'start' | 'stop'): Promise<void> {
    const args =
      action === 'start'
        ? ['-D', dataDir, '-l', join(dataDir, 'server.log'), '-w', '-t', '60', 'start']
        : ['-D', dataDir, '-m', 'fast', '-w', 'stop'];
    await this.tool('pg_ctl', args);
  }

  /** Starts the standby (again) and waits until it accepts read-only connections and streams. */
  async startReplica(): Promise<void> {
    await this.pgCtl(this.replicaDir, 'start');
    await waitFor(async () => {
      const [row] = await queryOn<{ standby: boolean }>(this.replicaUrl, 'SELECT pg_is_in_recovery() AS standby');
      return row?.standby === true;
    }, 'the standby to accept connections');
    await this.waitForReplay();
  }

  async stopReplica(): Promise<void> {
    await this.pgCtl(this.replicaDir, 'stop');
  }

  /** Stops replaying WAL on the standby: it keeps answering, from an ever older state. */
  async pauseReplay(): Promise<void> {
    await queryOn(this.replicaUrl, 'SELECT pg_wal_replay_pause()');
    await waitFor(async () => {
      const [row] = await queryOn<{ state: string }>(
        this.replicaUrl,
        'SELECT pg_get_wal_replay_pause_state() AS state',
      );
      return row?.state === 'paused';
    }, 'replay to pause');
  }

  async resumeReplay(): Promise<void> {
    await queryOn(this.replicaUrl, 'SELECT pg_wal_replay_resume()');
  }

  /** Waits until the standby has replayed everything the primary has written so far. */
  async waitForReplay(): Promise<void> {
    const [primary] = await queryOn<{ lsn: string }>(this.primaryUrl, 'SELECT pg_current_wal_lsn()::text AS lsn');
    await waitFor(async () => {
      const [row] = await queryOn<{ caught: boolean }>(
        this.replicaUrl,
        'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught',
        [primary?.lsn],
      );
      return row?.caught === true;
    }, 'the standby to replay the primary');
  }

  /** Statements the standby itself executed, from its own pg_stat_statements (matching `pattern`). */
  async replicaStatementCalls(pattern: string): Promise<number> {
    return statementCalls(this.replicaUrl, pattern);
  }

  async primaryStatementCalls(pattern: string): Promise<number> {
    return statementCalls(this.primaryUrl, pattern);
  }

  private async startBouncer(): Promise<void> {
    this.bouncer = await startPgBouncer(
      {
        primary: `host=127.0.0.1 port=${this.primaryPort} dbname=postgres`,
        replica: `host=127.0.0.1 port=${this.replicaPort} dbname=postgres`,
      },
      'primary',
    );
  }

  /** PgBouncer's port (after start). */
  get bouncerPort(): number {
    return this.bouncer?.port ?? 0;
  }

  async stop(): Promise<void> {
    await this.bouncer?.stop();
    this.bouncer = undefined;
    for (const dataDir of [this.replicaDir, this.primaryDir]) {
      if (!existsSync(join(dataDir, 'postmaster.pid'))) continue;
      await this.tool('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function statementCalls(url: string, pattern: string): Promise<number> {
  const [row] = await queryOn<{ calls: string | null }>(
    url,
    `SELECT sum(calls)::text AS calls FROM pg_stat_statements WHERE query LIKE $1`,
    [pattern],
  );
  return Number(row?.calls ?? 0);
}
