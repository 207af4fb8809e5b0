import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { runMigrations } from '../../src/database/migration-runner.js';
import { openDataSource } from '../../src/data-source.js';
import { freePort } from './free-port.mjs';
import { initialisedDataDir } from './pglite-template.mjs';

/**
 * A PostgreSQL server (PGlite) of one test's own, which the test can stop and start again on
 * the same port with its data kept: a database outage that touches nobody else's server.
 * Stopping closes every client connection, as a server going down does.
 */
export class DisposablePostgres {
  private server: PGLiteSocketServer | undefined;

  private constructor(
    private readonly db: PGlite,
    readonly port: number,
  ) {}

  static async start(): Promise<DisposablePostgres> {
    const postgres = new DisposablePostgres(
      await PGlite.create({ loadDataDir: await initialisedDataDir() }),
      await freePort(),
    );
    await postgres.resume();
    const dataSource = await openDataSource({ url: postgres.url, poolMax: 1 });
    await runMigrations(dataSource);
    await dataSource.destroy();
    return postgres;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  async resume(): Promise<void> {
    if (this.server) return;
    this.server = new PGLiteSocketServer({ db: this.db, host: '127.0.0.1', port: this.port, maxConnections: 8 });
    await this.server.start();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop();
  }

  async close(): Promise<void> {
    await this.stop();
    await this.db.close();
  }
}
