import { spawn, type SpawnOptions } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runMigrations } from '../../src/database/migration-runner.js';
import { openDataSource } from '../../src/data-source.js';
import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import { freePort } from './processes.js';

/** Where Debian's PostgreSQL 15 keeps initdb, pg_ctl and postgres (test/helpers/replica-tools.mjs agrees). */
export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** The postgres OS user when running as root: PostgreSQL refuses to run as root. */
export function serverUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

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
 * A real streaming-replication pair of its own: a primary `initdb`'d on a free port (WAL for
 * replicas, a replication entry in its own pg_hba.conf, pg_stat_statements loaded), migrated; a
 * hot standby made by `pg_basebackup -R`, started with `pg_ctl` on another port. Everything lives
 * in one temporary directory and is stopped and removed by `stop()`; the machine's own server is
 * untouched. Used by the replica tests (test/helpers/replica-cluster.ts) and bench:replicas.
 */
export class ReplicaPair {
  protected constructor(
    protected readonly dir: string,
    readonly primaryPort: number,
    readonly replicaPort: number,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {}

  /** Initialises, migrates and starts both servers; `extraSettings`: more postgresql.conf lines. */
  static async start(extraSettings: readonly string[] = []): Promise<ReplicaPair> {
    const pair = new ReplicaPair(...(await ReplicaPair.places()));
    await pair.init(extraSettings);
    return pair;
  }

  /**
   * The primary alone: the replica's folder (`replicaDir`) and port are left to a standby the
   * caller runs itself (the replica entrypoint's test).
   */
  static async startPrimary(
    extraSettings: readonly string[] = [],
    pickPort: () => Promise<number> = freePort,
  ): Promise<ReplicaPair> {
    const pair = new ReplicaPair(...(await ReplicaPair.places(pickPort)));
    try {
      await pair.initPrimary(extraSettings);
    } catch (error) {
      await pair.stop();
      throw error;
    }
    return pair;
  }

  /** A data folder and two ports; `pickPort` as the caller picks free ports (a test suite's own way). */
  protected static async places(
    pickPort: () => Promise<number> = freePort,
  ): Promise<[string, number, number, { uid: number; gid: number } | undefined]> {
    const dir = mkdtempSync(join(tmpdir(), 'replica-pair-'));
    const user = serverUser();
    if (user) chownSync(dir, user.uid, user.gid);
    return [dir, await pickPort(), await pickPort(), user];
  }

  protected async init(extraSettings: readonly string[]): Promise<void> {
    try {
      await this.initPrimary(extraSettings);
      await this.initReplica();
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  get primaryUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.primaryPort}/postgres`;
  }

  get replicaUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.replicaPort}/postgres`;
  }

  protected get primaryDir(): string {
    return join(this.dir, 'primary');
  }

  /** The temporary folder of both servers (their sockets live there). */
  get folder(): string {
    return this.dir;
  }

  /** The OS user the servers run as (postgres when the tests run as root). */
  get serverUser(): { uid: number; gid: number } | undefined {
    return this.user;
  }

  get replicaDir(): string {
    return join(this.dir, 'replica');
  }

  private asServer(): SpawnOptions {
    return this.user ? { uid: this.user.uid, gid: this.user.gid, cwd: this.dir } : { cwd: this.dir };
  }

  private tool(name: string, args: string[]): Promise<string> {
    return run(join(POSTGRES_BIN, name), args, this.asServer());
  }

  private async initPrimary(extraSettings: readonly string[]): Promise<void> {
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
        ...extraSettings,
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
        // An immediate checkpoint: the default spread one makes the backup wait for seconds.
        '--checkpoint=fast',
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

  async stop(): Promise<void> {
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
