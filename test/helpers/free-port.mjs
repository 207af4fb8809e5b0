import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel hands out ports from this range to outgoing connections (PostgreSQL, Redis and HTTP
 * clients of every Jest worker) and to `listen(0)`: a port picked there and freed again may be
 * taken by someone's next connection before the service binds it. Ports below it are taken only
 * by an explicit listen.
 */
function ephemeralRangeStart() {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > 11_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function bindable(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(0));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A loopback port nobody listens on right now, for a process that is about to bind it: a random
 * one below the kernel's range for outgoing connections, so that no client socket can take it in
 * the meantime (the OS's choice when none of those is free).
 */
export async function freePort() {
  const end = ephemeralRangeStart();
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await bindable(10_000 + Math.floor(Math.random() * (end - 10_000)));
    if (port) return port;
  }
  const port = await bindable(0);
  if (!port) throw new Error('no free loopback port');
  return port;
}
