import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** A request the receiver got: its headers and the raw body, as a verifying receiver reads them. */
export interface ReceivedWebhook {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

/** How the receiver answers a request: a status, after a delay, with extra headers. */
export interface ReceiverAnswer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * A real HTTP receiver on loopback that keeps every request and answers as `answer` says (200 by
 * default). `received` keeps all requests, failed ones included.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The status answered to each request of `received`. */
  readonly statuses: number[] = [];
  answer: (request: ReceivedWebhook, index: number) => ReceiverAnswer = () => ({ status: 200 });
  private server: Server | undefined;
  private waiters: { test: () => boolean; resolve: () => void }[] = [];

  /** The requests answered with a 2xx: what a receiver keeps. */
  accepted(): ReceivedWebhook[] {
    return this.received.filter((_, index) => (this.statuses[index] ?? 0) < 300);
  }

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const request = {
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const index = this.received.push(request) - 1;
        const answer = this.answer(request, index);
        this.statuses[index] = answer.status;
        const reply = () => {
          if (res.destroyed) return;
          res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
          res.end(answer.body ?? 'ok');
        };
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
        this.notify();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  get port(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  /** The bodies received, parsed. */
  events<T = { type: string; data: { id: string; type: string; action: string; record: unknown } }>(): T[] {
    return this.received.map((r) => JSON.parse(r.body) as T);
  }

  /** Resolves once `test` holds (checked on each request), or rejects after `timeoutMs`. */
  waitFor(test: () => boolean, timeoutMs = 15_000, what = 'the receiver to get what was expected'): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`Timed out waiting for ${what}; received ${this.received.length}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ test, resolve: done });
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.test()) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve();
      }
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
