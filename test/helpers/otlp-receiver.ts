import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: number | string };
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: OtlpAttribute[];
}
export interface OtlpTraces {
  resourceSpans: { scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

/** A local OTLP/HTTP receiver (JSON encoding): every span it was sent, with its scope. */
export class OtlpReceiver {
  readonly spans: (OtlpSpan & { scope: string })[] = [];
  readonly paths: string[] = [];
  private readonly server: Server;

  constructor() {
    this.server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        this.paths.push(request.url ?? '');
        const traces = JSON.parse(body) as OtlpTraces;
        for (const resourceSpans of traces.resourceSpans ?? []) {
          for (const scopeSpans of resourceSpans.scopeSpans) {
            for (const span of scopeSpans.spans) this.spans.push({ ...span, scope: scopeSpans.scope.name });
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async listen(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((done) => this.server.close(() => done()));
  }
}

export function attribute(span: OtlpSpan, key: string): string | undefined {
  return span.attributes.find((a) => a.key === key)?.value.stringValue;
}
