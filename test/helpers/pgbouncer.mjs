// A real PgBouncer in transaction mode, for the replica suites and for the slice of the API suite
// run through a pooler (npm run test:pgbouncer). Plain JavaScript: global setup loads it too.
import { spawn, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.mjs';

/**
 * The service's connection settings travel as startup parameters, which PgBouncer cannot pass on
 * per client: it is told to ignore them, and its server connections get the same values here.
 */
export const SERVICE_SETTINGS =
  "connect_query='SET statement_timeout = 15000; SET lock_timeout = 3000; SET idle_in_transaction_session_timeout = 30000'";

export const IGNORED_STARTUP_PARAMETERS =
  'extra_float_digits,statement_timeout,lock_timeout,idle_in_transaction_session_timeout';

/** The postgres OS user when running as root (PgBouncer and PostgreSQL refuse to run as root). */
export function serverUser() {
  if (userInfo().uid !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  return { uid, gid };
}

/**
 * Starts PgBouncer (transaction pooling, trust authentication for user postgres) serving
 * `databases` ({ name: 'host=... port=... dbname=...' }, `*` for any database name); resolves
 * once it accepts connections to `probeDatabase`. `stop()` ends it and removes its directory.
 */
export async function startPgBouncer(databases, probeDatabase) {
  const dir = mkdtempSync(join(tmpdir(), 'pgbouncer-'));
  const user = serverUser();
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  const users = join(dir, 'userlist.txt');
  writeFileSync(users, '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      ...Object.entries(databases).map(([name, target]) => `${name} = ${target} ${SERVICE_SETTINGS}`),
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      `unix_socket_dir = ${dir}`,
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      'default_pool_size = 20',
      'max_client_conn = 1000',
      `ignore_startup_parameters = ${IGNORED_STARTUP_PARAMETERS}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  if (user) {
    for (const path of [dir, ini, users]) chownSync(path, user.uid, user.gid);
  }
  const child = spawn('pgbouncer', [ini], { ...(user ?? {}), cwd: dir, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGINT');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/${probeDatabase}` });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline || child.exitCode !== null) {
        await stop();
        throw new Error(`PgBouncer did not start: ${error instanceof Error ? error.message : String(error)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { port, stop };
}
