// Shared by jest.config.js (which leaves test/replicas/ out where the tools are missing, outside
// CI) and the replica cluster harness (which fails when they are missing).
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/** Where Debian's PostgreSQL 15 keeps initdb, pg_ctl and postgres. */
export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

function onPath(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** What the replica suites need and this machine lacks, or undefined when it has everything. */
export function replicaToolsMissing() {
  const missing = [];
  for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
    if (!existsSync(`${POSTGRES_BIN}/${tool}`)) missing.push(`${POSTGRES_BIN}/${tool}`);
  }
  if (!existsSync('/usr/bin/pg_basebackup')) missing.push('/usr/bin/pg_basebackup');
  if (!onPath('pgbouncer')) missing.push('pgbouncer (apt-get install pgbouncer)');
  if (!onPath('redis-server')) missing.push('redis-server (apt-get install redis-server)');
  return missing.length === 0 ? undefined : missing.join(', ');
}
