import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { keepProtocolBatchesTogether } from './pglite-batch-affinity.js';

export interface EmbeddedPostgres {
  /** A postgres:// URL the `pg` driver connects to. */
  readonly url: string;
  /**
   * The data directory as a gzipped tar. PGlite takes the copy while no statement runs; a
   * transaction open at that moment is not committed in the copy and is rolled back when the
   * copy is opened (as after a crash), so the copy is consistent.
   */
  dumpDataDir(): Promise<Blob>;
  stop(): Promise<void>;
}

/**
 * Starts PGlite (PostgreSQL in WASM) and serves it on a loopback port, so the same `pg`
 * driver and TypeORM code run against it as against a real server.
 * `dataDir` undefined: in memory. PGlite has one backend, so clients must use a pool of one.
 */
export async function startEmbeddedPostgres(dataDir?: string, loadDataDir?: Blob): Promise<EmbeddedPostgres> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir, loadDataDir ? { loadDataDir } : {});
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 8 });
  keepProtocolBatchesTogether(server, db);
  await server.start();
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  let stopped = false;
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    async dumpDataDir() {
      // Fewer WAL records to replay when the copy is opened. Not needed for consistency (the
      // copy recovers from its WAL like a crashed server), so a refusal does not stop the dump:
      // it runs on the one backend, and a client's failed transaction there refuses it.
      await db.exec('CHECKPOINT').catch(() => undefined);
      return db.dumpDataDir('gzip');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
    },
  };
}
