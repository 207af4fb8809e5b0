import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { freePort } from '../helpers/free-port.mjs';

/** The spawned-service suites bind the port this gives them a moment later: it must still be free then. */
describe('free loopback ports for spawned services', () => {
  it('picks ports below the range the kernel gives outgoing connections, and bindable ones', async () => {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(Number(low));
    }
    const server = createServer();
    await new Promise<void>((done) => server.listen(ports[0], '127.0.0.1', done));
    await new Promise((done) => server.close(done));
  });
});
