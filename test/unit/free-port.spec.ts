import { createServer } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { ephemeralRange, freePort } from '../helpers/free-port.mjs';

/** The spawned-service suites bind the port this gives them a moment later: it must still be free then. */
describe('free loopback ports for spawned services', () => {
  it('picks ports outside the range the kernel gives outgoing connections, and bindable ones', async () => {
    const { low, high } = ephemeralRange();
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(port < low || port > high).toBe(true);
    const server = createServer();
    await new Promise<void>((done) => server.listen(ports[0], '127.0.0.1', done));
    await new Promise((done) => server.close(done));
  });
});
