import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The kernel hands out ports from this range to outgoing connections (PostgreSQL, Redis and HTTP
 * clients of every Jest worker) and to `listen(0)`: a port picked there and freed again may be
 * taken by someone's next connection before the service binds it. Ports outside it are taken
 * only by an explicit listen.
 */
export function ephemeralRange() {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return { low, high };
  } catch {
    // Not Linux: the IANA dynamic range, which most other systems use.
  }
  return { low: 49_152, high: 65_535 };
}

/** Where to pick from: below the kernel's range when there is room, else above it. */
function pickRange() {
  const { low, high } = ephemeralRange();
  if (low > 11_000) return { from: 10_000, to: low };
  if (high < 64_000) return { from: high + 1, to: 65_536 };
  return undefined;
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
 * one outside the kernel's range for outgoing connections, so that no client socket can take it in
 * the meantime (the OS's choice when there is no room outside it).
 */
export async function freePort() {
  const range = pickRange();
  for (let attempt = 0; range && attempt < 20; attempt++) {
    const port = await bindable(range.from + Math.floor(Math.random() * (range.to - range.from)));
    if (port) return port;
  }
  const port = await bindable(0);
  if (!port) throw new Error('no free loopback port');
  return port;
}
