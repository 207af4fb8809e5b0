import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join } from 'node:path';

/** Unix socket paths are limited to about 107 bytes; a deeper DATA_DIR gets no control socket. */
const MAX_SOCKET_PATH = 100;
const BACKUP_REQUEST = 'backup\n';

export interface ControlServer {
  readonly path: string;
  close(): Promise<void>;
}

/**
 * A local-only door into the running service for the CLI's `backup`: a Unix socket inside
 * DATA_DIR, readable and writable by its owner only (mode 0600), that answers one request,
 * `backup`, with a consistent copy of the embedded database. Nothing else can be asked.
 * Undefined when DATA_DIR's path is too long for a Unix socket.
 */
export async function serveBackups(dataDir: string, dump: () => Promise<Blob>): Promise<ControlServer | undefined> {
  const path = join(dataDir, 'control.sock');
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH) return undefined;
  // DATA_DIR is locked by this process, so a socket file left there is a dead process's.
  rmSync(path, { force: true });
  const server: Server = createServer((socket) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (!received.includes('\n')) {
        if (received.length > BACKUP_REQUEST.length) socket.destroy();
        return;
      }
      socket.removeAllListeners('data');
      if (received !== BACKUP_REQUEST) {
        socket.end('error unknown request\n');
        return;
      }
      dump()
        .then(async (blob) => {
          const bytes = Buffer.from(await blob.arrayBuffer());
          socket.write(`ok ${bytes.length}\n`);
          socket.end(bytes);
        })
        .catch((error: unknown) => {
          socket.end(`error ${error instanceof Error ? error.message.split('\n')[0] : 'backup failed'}\n`);
        });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Asks the service listening on `path` for a backup; resolves with the gzipped tar. */
export function requestBackup(path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = createConnection(path);
    socket.on('connect', () => socket.write(BACKUP_REQUEST));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const newline = all.indexOf(0x0a);
      const head = newline < 0 ? all.toString('utf8') : all.subarray(0, newline).toString('utf8');
      const body = newline < 0 ? Buffer.alloc(0) : all.subarray(newline + 1);
      const ok = /^ok (\d+)$/.exec(head);
      if (ok && Number(ok[1]) === body.length) resolve(body);
      else if (head.startsWith('error ')) reject(new Error(`The service could not make the backup: ${head.slice(6)}`));
      else reject(new Error('The service closed the connection before the backup was complete.'));
    });
  });
}
