/**
 * A webhook receiver in a process of its own (started by a benchmark), so its work never shares
 * an event loop with the bench or the service: answers every POST with 204 at once and counts
 * them. `GET /count` answers `{"received": n}`. Prints `{"port": n}` once listening on loopback.
 */
import { createServer } from 'node:http';

let received = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
    return;
  }
  req.resume();
  req.on('end', () => {
    received += 1;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
