import { ServiceUnavailableException } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorMessages } from '../http/error-messages.js';

interface Compartment {
  active: number;
  readonly waiting: Array<() => void>;
}

/**
 * A bulkhead per enterprise: at most `limit` writes of one enterprise are served at once in
 * this process, so one tenant whose writers wait on a lock holds at most that many of the pool's
 * connections and the others (its own reads included) keep theirs. A request over the
 * bound waits, holding no connection, up to `maxWaitMs`, then answers 503 with Retry-After
 * (nothing was done, so the client may send it again, with its Idempotency-Key if it had one).
 */
export class EnterpriseBulkhead {
  private readonly compartments = new Map<string, Compartment>();

  /** `busyMessage`: the 503's message for a request that waited `maxWaitMs` in vain. */
  constructor(
    readonly limit: number,
    private readonly maxWaitMs: number,
    private readonly busyMessage: string = ErrorMessages.enterpriseBusy,
  ) {}

  /**
   * A place in the enterprise's compartment; the returned function gives it back (once). A free
   * place is given at once, without a promise (the usual case, on every request); a full
   * compartment answers a promise that settles when a place frees or the wait is refused (after
   * `maxWaitMs`, the bulkhead's own bound unless the request has less left).
   */
  enter(enterpriseId: string, maxWaitMs: number = this.maxWaitMs): (() => void) | Promise<() => void> {
    let compartment = this.compartments.get(enterpriseId);
    if (compartment === undefined) {
      compartment = { active: 0, waiting: [] };
      this.compartments.set(enterpriseId, compartment);
    }
    const leave = this.leaver(enterpriseId, compartment);
    if (compartment.active < this.limit) {
      compartment.active += 1;
      return leave;
    }
    return this.wait(compartment, maxWaitMs).then(() => leave);
  }

  /** Requests of the enterprise being served now (for tests and metrics). */
  active(enterpriseId: string): number {
    return this.compartments.get(enterpriseId)?.active ?? 0;
  }

  private wait(compartment: Compartment, maxWaitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const admit = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = compartment.waiting.indexOf(admit);
        if (at >= 0) compartment.waiting.splice(at, 1);
        reject(new ServiceUnavailableException({ message: this.busyMessage }));
      }, maxWaitMs);
      compartment.waiting.push(admit);
    });
  }

  private leaver(enterpriseId: string, compartment: Compartment): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.leave(enterpriseId, compartment);
    };
  }

  /** Hands the place to the next waiter, or frees it. */
  private leave(enterpriseId: string, compartment: Compartment): void {
    const next = compartment.waiting.shift();
    if (next) {
      next();
      return;
    }
    compartment.active -= 1;
    if (compartment.active === 0) this.compartments.delete(enterpriseId);
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request took a place in its enterprise's bulkhead: gives it back. */
    leaveEnterpriseBulkhead?: () => void;
    /** Set once the answer is sent or the client has gone: a place granted later is given back at once. */
    answerClosed?: boolean;
  }
}

/**
 * A request gives its place back once its answer is sent or its connection is gone, whichever
 * comes first: the response's `close` covers both on a real socket (a client that went away
 * while the request waited for its place gets no answer, so no onResponse), onResponse covers
 * injected requests.
 */
export function leaveBulkheadWhenDone(fastify: FastifyInstance): void {
  const leave = (request: FastifyRequest): void => {
    request.answerClosed = true;
    request.leaveEnterpriseBulkhead?.();
  };
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => leave(request));
    done();
  });
  fastify.addHook('onResponse', (request, _reply, done) => {
    leave(request);
    done();
  });
}

/**
 * Takes a place for the request in the compartment of `key` (its enterprise, or one record), given back when it is done:
 * at once when one is free (no promise on the usual path), else after waiting for one.
 */
export function enterBulkhead(
  bulkhead: EnterpriseBulkhead,
  request: FastifyRequest,
  key: string,
  maxWaitMs?: number,
): Promise<void> | undefined {
  const entered = bulkhead.enter(key, maxWaitMs);
  if (typeof entered === 'function') {
    keepPlace(request, entered);
    return undefined;
  }
  return entered.then((leave) => keepPlace(request, leave));
}

/**
 * The request holds its place until its answer is sent or its connection closes. A client that
 * went away before the place was granted (while its token was being looked up, or while it
 * waited) closed the connection already: nothing will be sent and no `close` comes again, so the
 * place is given back at once.
 */
function keepPlace(request: FastifyRequest, leave: () => void): void {
  // A request may hold places in two bulkheads (its record's, then its enterprise's): both go back.
  const held = request.leaveEnterpriseBulkhead;
  request.leaveEnterpriseBulkhead =
    held === undefined
      ? leave
      : () => {
          leave();
          held();
        };
  if (request.answerClosed === true) request.leaveEnterpriseBulkhead();
}
