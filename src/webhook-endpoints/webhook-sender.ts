import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import { guardedLookup, allowedAddresses, RefusedAddressError, type Resolver } from './webhook-address.js';

/** An answer must arrive, headers and body, within this. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Of an answer's body, only this much is kept (for the deliveries list). */
export const KEPT_BODY_BYTES = 1024;
export const USER_AGENT = 'FinanceIntake-Webhooks/1.0';

export type DeliveryOutcome = 'delivered' | 'http_error' | 'timeout' | 'network_error' | 'refused_address';

export interface SendResult {
  readonly outcome: DeliveryOutcome;
  readonly statusCode: number | null;
  /** Why it failed, in a few words; never a secret (the request is not echoed). */
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly durationMs: number;
}

export interface SignedMessage {
  readonly webhookId: string;
  readonly body: string;
  /** Signing secrets (`whsec_...`): the current one, and the previous one during a rotation's overlap. */
  readonly secrets: readonly string[];
}

/**
 * Headers of the Standard Webhooks specification, signed by the `standardwebhooks` package: one
 * `v1,<signature>` per secret, space-separated, so a receiver holding either secret verifies.
 */
export function signedHeaders(message: SignedMessage, sentAt: Date): Record<string, string> {
  const signatures = message.secrets.map((secret) => new Webhook(secret).sign(message.webhookId, sentAt, message.body));
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': message.webhookId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}

async function keptBody(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size < KEPT_BODY_BYTES) chunks.push(chunk.subarray(0, KEPT_BODY_BYTES - size));
    size += chunk.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

type Undici = typeof import('undici');

let undiciLoaded: Promise<Undici> | undefined;

/**
 * undici is loaded with the first delivery: a process that never sends one (no endpoints, or
 * the CLI) does not carry its hundred-odd modules in its heap.
 */
function loadUndici(): Promise<Undici> {
  return (undiciLoaded ??= import('undici'));
}

interface Connections {
  readonly undici: Undici;
  readonly agent: Agent;
}

/**
 * Sends webhooks over one connection pool (keep-alive per receiver). Redirects are never
 * followed (a 3xx is a failure); every connection resolves its host through the address check,
 * and an address literal in the URL is checked before any connection is made.
 */
export class WebhookSender {
  private connections: Promise<Connections> | undefined;

  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolve: Resolver,
  ) {}

  private open(): Promise<Connections> {
    return (this.connections ??= loadUndici().then((undici) => ({
      undici,
      agent: new undici.Agent({
        connect: { lookup: guardedLookup(this.allowPrivate, this.resolve), timeout: DELIVERY_TIMEOUT_MS },
        headersTimeout: DELIVERY_TIMEOUT_MS,
        bodyTimeout: DELIVERY_TIMEOUT_MS,
        keepAliveTimeout: 30_000,
      }),
    })));
  }

  async send(url: string, message: SignedMessage, sentAt: Date = new Date()): Promise<SendResult> {
    const { undici, agent } = await this.open();
    const started = performance.now();
    const done = (
      outcome: DeliveryOutcome,
      statusCode: number | null,
      error: string | null,
      responseBody: string | null,
    ): SendResult => ({
      outcome,
      statusCode,
      error,
      responseBody,
      durationMs: Math.round(performance.now() - started),
    });
    const signal = AbortSignal.timeout(DELIVERY_TIMEOUT_MS);
    try {
      const { hostname } = new URL(url);
      // Names are checked by the connection's own lookup; a literal address never reaches one.
      if (/^[\d.]+$|^\[/.test(hostname)) await allowedAddresses(hostname, this.allowPrivate, this.resolve);
      const answer = await undici.request(url, {
        method: 'POST',
        headers: signedHeaders(message, sentAt),
        body: message.body,
        dispatcher: agent,
        signal,
      });
      const body = await keptBody(answer.body);
      const ok = answer.statusCode >= 200 && answer.statusCode < 300;
      return done(ok ? 'delivered' : 'http_error', answer.statusCode, ok ? null : `HTTP ${answer.statusCode}`, body);
    } catch (error) {
      const [outcome, error_] = signal.aborted ? TIMED_OUT : failureOf(error, undici.errors);
      return done(outcome, null, error_, null);
    }
  }

  async close(): Promise<void> {
    if (this.connections) await (await this.connections).agent.close();
  }
}

const TIMED_OUT: [DeliveryOutcome, string] = ['timeout', `No answer within ${DELIVERY_TIMEOUT_MS / 1000} s`];

function failureOf(error: unknown, undiciErrors: Undici['errors']): [DeliveryOutcome, string] {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  for (const candidate of [error, cause]) {
    if (candidate instanceof RefusedAddressError) return ['refused_address', candidate.message.slice(0, 255)];
  }
  const timedOut = (candidate: unknown) =>
    candidate instanceof undiciErrors.HeadersTimeoutError ||
    candidate instanceof undiciErrors.BodyTimeoutError ||
    candidate instanceof undiciErrors.ConnectTimeoutError;
  if (timedOut(error) || timedOut(cause)) return TIMED_OUT;
  const code = (cause ?? error) as { code?: unknown; message?: unknown };
  const text = typeof code.code === 'string' ? code.code : typeof code.message === 'string' ? code.message : 'error';
  return ['network_error', `Connection failed: ${text}`.slice(0, 255)];
}
