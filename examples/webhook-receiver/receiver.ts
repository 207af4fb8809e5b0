/**
 * A webhook receiver for Finance Intake: verifies each delivery with the `standardwebhooks`
 * package, drops the copies it has already seen (same `webhook-id`), and keeps a copy of the
 * enterprise's records in step (here in memory; a real integration writes to its own store).
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4000 node dist/receiver.js
 *
 * `GET /copy` answers the copy, so you can watch it follow the service.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** What the service sends: one change feed entry per event. */
interface WebhookEvent {
  type: string;
  timestamp: string;
  data: {
    type: string;
    id: string;
    action: 'upserted' | 'removed';
    changed_at: string;
    record: Record<string, unknown> | null;
  };
}

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error('Set WEBHOOK_SECRET to the secret the endpoint was created with (whsec_...).');
const webhook = new Webhook(secret);
const port = Number(process.env.PORT ?? 4000);

/** The copy: records by `type:id`, each at the latest state received. */
const copy = new Map<string, { changed_at: string; record: Record<string, unknown> }>();
/** Webhook ids already handled (a real receiver keeps them a few days, as long as retries run). */
const seen = new Set<string>();

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function apply(event: WebhookEvent): void {
  const key = `${event.data.type}:${event.data.id}`;
  const kept = copy.get(key);
  // Deliveries come in the feed's order; a replay may bring an older state again, which loses.
  if (kept && kept.changed_at > event.data.changed_at) return;
  if (event.data.action === 'removed' || event.data.record === null) copy.delete(key);
  else copy.set(key, { changed_at: event.data.changed_at, record: event.data.record });
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method === 'GET' && request.url === '/copy') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(Object.fromEntries([...copy].map(([key, value]) => [key, value.record]))));
    return;
  }
  if (request.method !== 'POST') {
    response.writeHead(405).end();
    return;
  }
  // Verify the raw body exactly as received: parsing and serialising again would change it.
  const body = await readBody(request);
  let event: WebhookEvent;
  try {
    event = webhook.verify(body, request.headers as Record<string, string>) as WebhookEvent;
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    response.writeHead(401).end();
    return;
  }
  const id = String(request.headers['webhook-id']);
  if (!seen.has(id)) {
    seen.add(id);
    apply(event);
  }
  // Any 2xx acknowledges; answer quickly (within 10 s) and do slow work afterwards.
  response.writeHead(204).end();
}

const server = createServer((request, response) => {
  handle(request, response).catch(() => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close());
